"""PostgreSQL (snake_case) and MongoDB (kebab-case, like the MongoDB MCP server)."""
from _common import Server

pg = Server("postgres")
t = pg.t
SCHEMA = "Schema name (default public)"
TBL = "*Table name"
t("query", "Run a read-only SQL query in a transaction and return the rows as JSON.", sql="*SELECT statement",
  params=("array", "Positional parameters ($1, $2, ...)"), limit=("integer", "Row cap"))
t("execute_sql", "Execute a SQL statement that changes data or schema (INSERT, UPDATE, DELETE, DDL) and return affected rows.",
  sql="*SQL statement", params=("array", "Parameters"))
t("list_schemas", "List schemas in the current database with their owners.")
t("list_tables", "List tables in a schema with estimated row counts and sizes.", schema=SCHEMA)
t("describe_table", "Show a table's columns, types, defaults, nullability, constraints and indexes.", table=TBL, schema=SCHEMA)
t("list_views", "List views and materialized views in a schema.", schema=SCHEMA)
t("refresh_materialized_view", "Recompute a materialized view, optionally concurrently.", view="*View name",
  concurrently=("boolean", "Refresh without locking reads"))
t("list_indexes", "List indexes on a table with definitions, sizes and scan counts.", table=TBL, schema=SCHEMA)
t("create_index", "Build an index on columns, concurrently to avoid blocking writes.", table=TBL, columns=("array", "*Columns"),
  name="Index name", unique=("boolean", "Unique"), concurrently=("boolean", "Build concurrently"),
  method=("string", "Access method", ["btree", "hash", "gin", "gist", "brin"]))
t("drop_index", "Drop an index.", name="*Index name", concurrently=("boolean", "Drop concurrently"))
t("explain_query", "Show the execution plan for a query, optionally running it with EXPLAIN ANALYZE for real timings.",
  sql="*Query", analyze=("boolean", "Actually run it"), buffers=("boolean", "Include buffer usage"))
t("get_slow_queries", "List the most expensive statements from pg_stat_statements by total or mean time.",
  order_by=("string", "Sort", ["total_time", "mean_time", "calls"]), limit=("integer", "Top N"))
t("get_active_sessions", "Show current sessions from pg_stat_activity: user, state, query, wait event and duration.",
  include_idle=("boolean", "Include idle sessions"))
t("get_blocking_locks", "Find sessions waiting on locks and the sessions blocking them.")
t("cancel_backend", "Cancel the running query of a backend process without closing its connection.", pid=("integer", "*Backend PID"))
t("terminate_backend", "Terminate a backend process and close its connection.", pid=("integer", "*Backend PID"))
t("get_table_bloat", "Estimate wasted space (bloat) in tables and indexes.", schema=SCHEMA)
t("vacuum_analyze", "Run VACUUM (optionally FULL) and ANALYZE on a table to reclaim space and refresh planner statistics.",
  table=TBL, full=("boolean", "VACUUM FULL (locks the table)"))
t("get_database_size", "Report the size of each database and of the largest tables.")
t("list_extensions", "List installed and available extensions with versions.")
t("create_extension", "Install an extension such as pg_trgm, postgis or pgvector.", name="*Extension name", schema="Schema")
t("list_roles", "List database roles with login, superuser and membership attributes.")
t("create_role", "Create a role or login user with a password and attributes.", name="*Role name", password="Password",
  login=("boolean", "Can log in"), createdb=("boolean", "Can create databases"))
t("grant_privileges", "Grant privileges on a table, schema or database to a role.", privileges=("array", "*SELECT, INSERT, ..."),
  on="*Object, e.g. TABLE orders or SCHEMA analytics", role="*Role")
t("revoke_privileges", "Revoke privileges from a role.", privileges=("array", "*Privileges"), on="*Object", role="*Role")
t("create_table", "Create a table from column definitions and constraints.", table=TBL, columns=("array", "*Column definitions"),
  primary_key=("array", "Primary key columns"), schema=SCHEMA)
t("alter_table", "Add, drop, rename or retype a column, or add a constraint.", table=TBL, action="*ALTER TABLE clause")
t("list_foreign_keys", "Show foreign keys into and out of a table.", table=TBL)
t("get_replication_status", "Show replication slots, standby lag and WAL sender state.")
t("list_migrations", "List applied schema migrations from the migrations table.", table="Migrations table name")
t("import_csv", "Load rows from CSV text into a table with COPY.", table=TBL, csv="*CSV content", header=("boolean", "First line is a header"))
t("export_query_csv", "Run a query and return the result as CSV.", sql="*Query")
t("get_column_stats", "Show planner statistics for a column: null fraction, distinct values, most common values.",
  table=TBL, column="*Column")
TOOLS = pg.tools

mg = Server("mongodb")
t = mg.t
DB = "*Database name"
COLL = "*Collection name"
t("list-databases", "List all databases on the cluster with their sizes.")
t("list-collections", "List the collections in a database.", database=DB)
t("collection-schema", "Infer a collection's schema from sampled documents: fields, types and how often each appears.",
  database=DB, collection=COLL, sampleSize=("integer", "Documents to sample"))
t("collection-indexes", "List a collection's indexes with keys and options.", database=DB, collection=COLL)
t("collection-storage-size", "Get a collection's storage size, document count and average document size.",
  database=DB, collection=COLL)
t("find", "Query documents with a filter, projection, sort and limit.", database=DB, collection=COLL,
  filter=("object", "Query filter, e.g. {status: 'active'}"), projection=("object", "Fields to include"),
  sort=("object", "Sort spec"), limit=("integer", "Max documents"))
t("count", "Count documents matching a filter.", database=DB, collection=COLL, query=("object", "Filter"))
t("aggregate", "Run an aggregation pipeline ($match, $group, $lookup, $sort...) and return the results.",
  database=DB, collection=COLL, pipeline=("array", "*Pipeline stages"))
t("distinct", "Return the distinct values of a field, optionally among documents matching a filter.", database=DB,
  collection=COLL, field="*Field path", filter=("object", "Filter"))
t("insert-many", "Insert one or more documents into a collection.", database=DB, collection=COLL,
  documents=("array", "*Documents"))
t("update-many", "Update every document matching a filter with an update document ($set, $inc, $push...).",
  database=DB, collection=COLL, filter=("object", "*Filter"), update=("object", "*Update operators"),
  upsert=("boolean", "Insert if nothing matches"))
t("replace-one", "Replace a whole document that matches a filter.", database=DB, collection=COLL,
  filter=("object", "*Filter"), replacement=("object", "*New document"))
t("delete-many", "Delete every document matching a filter.", database=DB, collection=COLL, filter=("object", "*Filter"))
t("find-one-and-update", "Atomically update one document and return it before or after the change.", database=DB,
  collection=COLL, filter=("object", "*Filter"), update=("object", "*Update"), returnNew=("boolean", "Return the updated document"))
t("bulk-write", "Run a mix of insert, update and delete operations in one batch.", database=DB, collection=COLL,
  operations=("array", "*Operations"), ordered=("boolean", "Stop at first error"))
t("create-index", "Build an index on one or more fields, optionally unique, sparse or with a TTL.", database=DB,
  collection=COLL, keys=("object", "*Index keys, e.g. {email: 1}"), unique=("boolean", "Unique"),
  expireAfterSeconds=("integer", "TTL in seconds"))
t("drop-index", "Remove an index from a collection.", database=DB, collection=COLL, name="*Index name")
t("create-collection", "Create a collection, optionally capped or time-series, with a JSON-schema validator.",
  database=DB, collection=COLL, validator=("object", "$jsonSchema validator"), timeseries=("object", "Time-series options"))
t("drop-collection", "Drop a collection with all its documents and indexes.", database=DB, collection=COLL)
t("rename-collection", "Rename a collection.", database=DB, collection=COLL, newName="*New name")
t("drop-database", "Drop an entire database.", database=DB)
t("explain", "Explain how a find or aggregate would run: chosen index, documents examined and time.",
  database=DB, collection=COLL, method=("object", "*The find or aggregate to explain"))
t("db-stats", "Get database statistics: collections, objects, data and index sizes.", database=DB)
t("current-op", "List operations currently running on the server, with duration and namespace.",
  minSecsRunning=("integer", "Only those running at least this long"))
t("kill-op", "Stop a running operation by its opid.", opid=("integer", "*Operation ID"))
t("mongodb-logs", "Read recent entries from the server log, optionally only startup warnings.",
  type=("string", "Which log", ["global", "startupWarnings"]), limit=("integer", "Entries"))
t("atlas-list-clusters", "List Atlas clusters in a project with tier, version and state.", projectId="*Atlas project ID")
t("atlas-create-free-cluster", "Create a free M0 Atlas cluster in a region.", projectId="*Atlas project ID", name="*Cluster name",
  region="Region")
t("atlas-create-access-list", "Allow an IP address or CIDR block to connect to the Atlas project.", projectId="*Atlas project ID",
  ipAddresses=("array", "IPs"), cidrBlocks=("array", "CIDR ranges"), comment="Why")
t("atlas-create-db-user", "Create a database user with roles on an Atlas project.", projectId="*Atlas project ID",
  username="*Username", password="*Password", roles=("array", "*Roles, e.g. readWrite@orders"))
t("atlas-list-alerts", "List open alerts on an Atlas project, such as high CPU or replication lag.", projectId="*Atlas project ID")
t("export", "Export the results of a find or aggregation to a JSON file for download.", database=DB, collection=COLL,
  filter=("object", "Filter"), exportName="*File name")
TOOLS += mg.tools
