"""BigQuery (snake_case) and the local filesystem server (snake_case)."""
from _common import Server

bq = Server("bigquery", titles=True)
t = bq.t
PROJ = "GCP project ID (defaults to the configured project)"
DS = "*Dataset ID"
TB = "*Table ID"
t("run_query", "Run a GoogleSQL query and return the result rows; large results are paged.", query="*SQL",
  project_id=PROJ, max_results=("integer", "Row cap"), use_legacy_sql=("boolean", "Legacy SQL"))
t("dry_run_query", "Validate a query and estimate how many bytes it would scan, without running it or incurring cost.",
  query="*SQL", project_id=PROJ)
t("list_datasets", "List datasets in a project with their locations.", project_id=PROJ)
t("get_dataset", "Get a dataset's location, default expiration, labels and access entries.", dataset_id=DS, project_id=PROJ)
t("create_dataset", "Create a dataset in a location with optional default table expiration.", dataset_id=DS,
  location="Location, e.g. US or europe-west1", default_table_expiration_ms=("integer", "Default expiration"))
t("delete_dataset", "Delete a dataset; with delete_contents it removes the tables in it too.", dataset_id=DS,
  delete_contents=("boolean", "Also delete tables"))
t("list_tables", "List tables and views in a dataset.", dataset_id=DS, project_id=PROJ)
t("get_table_schema", "Get a table's columns, types, modes and descriptions, plus partitioning and clustering.",
  dataset_id=DS, table_id=TB)
t("preview_table", "Read the first rows of a table without running a query (free).", dataset_id=DS, table_id=TB,
  max_results=("integer", "Rows"), selected_fields="Comma-separated columns")
t("create_table", "Create a table from a schema, optionally partitioned by a date column and clustered.",
  dataset_id=DS, table_id=TB, schema=("array", "*Field definitions"), partition_field="Partition column",
  clustering_fields=("array", "Cluster columns"))
t("update_table_schema", "Add columns to a table or relax REQUIRED columns to NULLABLE.", dataset_id=DS, table_id=TB,
  fields=("array", "*New or changed fields"))
t("delete_table", "Delete a table or view.", dataset_id=DS, table_id=TB)
t("copy_table", "Copy a table (or snapshot it) to another dataset or project.", source_table="*project.dataset.table",
  destination_table="*project.dataset.table", write_disposition=("string", "If it exists", ["WRITE_TRUNCATE", "WRITE_APPEND", "WRITE_EMPTY"]))
t("create_view", "Create a view defined by a SQL query.", dataset_id=DS, view_id="*View ID", query="*Defining SQL")
t("insert_rows", "Stream rows into a table (streaming insert).", dataset_id=DS, table_id=TB, rows=("array", "*JSON rows"))
t("load_from_gcs", "Load CSV, JSON, Avro or Parquet files from Cloud Storage into a table.", dataset_id=DS, table_id=TB,
  source_uris=("array", "*gs:// URIs"), source_format=("string", "*Format", ["CSV", "NEWLINE_DELIMITED_JSON", "AVRO", "PARQUET"]),
  autodetect=("boolean", "Detect the schema"))
t("export_to_gcs", "Extract a table to files in Cloud Storage as CSV, JSON, Avro or Parquet.", dataset_id=DS, table_id=TB,
  destination_uri="*gs:// URI with wildcard", format=("string", "Format", ["CSV", "JSON", "AVRO", "PARQUET"]))
t("list_jobs", "List recent query, load and extract jobs with state, user and bytes processed.", project_id=PROJ,
  state_filter=("string", "State", ["running", "pending", "done"]), all_users=("boolean", "Jobs of all users"))
t("get_job", "Get a job's status, errors, statistics and the query it ran.", job_id="*Job ID", location="Location")
t("cancel_job", "Request cancellation of a running job.", job_id="*Job ID", location="Location")
t("get_query_cost_report", "Summarize bytes billed and slot time per user or label over a date range from INFORMATION_SCHEMA.",
  start_date="*Start date", end_date="End date", group_by=("string", "Grouping", ["user", "label", "day"]))
t("create_scheduled_query", "Schedule a query to run periodically and write to a destination table.",
  query="*SQL", schedule="*Schedule, e.g. every 24 hours", destination_table="Destination table", display_name="*Name")
t("list_scheduled_queries", "List scheduled queries (Data Transfer Service configs) with last run status.", project_id=PROJ)
t("create_snapshot", "Take a point-in-time snapshot of a table that can be restored later.", source_table="*Table",
  snapshot_table="*Snapshot name", snapshot_time="Point in time (default now)")
t("query_table_history", "Read a table as it was at a past time using time travel (FOR SYSTEM_TIME AS OF).",
  dataset_id=DS, table_id=TB, as_of="*Timestamp within the time-travel window")
t("set_table_expiration", "Make a table expire (auto-delete) at a given time.", dataset_id=DS, table_id=TB,
  expiration_time="*Timestamp")
t("grant_dataset_access", "Give a user or group reader, writer or owner access to a dataset.", dataset_id=DS,
  member="*user:... or group:...", role=("string", "*Role", ["READER", "WRITER", "OWNER"]))
t("list_routines", "List user-defined functions and stored procedures in a dataset.", dataset_id=DS)
t("train_ml_model", "Train a BigQuery ML model (e.g. linear regression, k-means, ARIMA) from a SELECT.", dataset_id=DS,
  model_id="*Model ID", model_type="*Model type", training_query="*SELECT with training data")
t("ml_forecast", "Forecast future values with a time-series model.", model="*dataset.model", horizon=("integer", "*Steps ahead"))
TOOLS = bq.tools

fs = Server("filesystem")
t = fs.t
PATH = "*Path (must be inside an allowed directory)"
t("read_text_file", "Read a text file as UTF-8; use head or tail to read only the first or last N lines.", path=PATH,
  head=("integer", "First N lines"), tail=("integer", "Last N lines"))
t("read_media_file", "Read an image or audio file and return base64 data with its MIME type.", path=PATH)
t("read_multiple_files", "Read several files in one call; a failure on one does not stop the others.",
  paths=("array", "*Paths"))
t("write_file", "Create a new file or completely overwrite an existing one with the given content.", path=PATH,
  content="*Content")
t("append_to_file", "Add text to the end of a file, creating it if needed.", path=PATH, content="*Text to add")
t("edit_file", "Make line-based edits to a text file by replacing exact text sequences; returns a git-style diff.",
  path=PATH, edits=("array", "*Objects with oldText and newText"), dryRun=("boolean", "Preview the diff only"))
t("create_directory", "Create a directory, including missing parents; succeeds silently if it exists.", path=PATH)
t("list_directory", "List the entries of a directory, marked [FILE] or [DIR].", path=PATH)
t("list_directory_with_sizes", "List a directory with the size of each entry, sortable by name or size.", path=PATH,
  sortBy=("string", "Sort", ["name", "size"]))
t("directory_tree", "Return a recursive JSON tree of files and directories, skipping excluded patterns.", path=PATH,
  excludePatterns=("array", "Glob patterns to skip"))
t("move_file", "Move or rename a file or directory; fails if the destination exists.", source="*Current path",
  destination="*New path")
t("copy_file", "Copy a file or directory tree to a new location.", source="*Source path", destination="*Destination path",
  overwrite=("boolean", "Replace an existing destination"))
t("delete_file", "Delete a single file.", path=PATH)
t("remove_directory", "Delete a directory; with recursive it also removes everything inside.", path=PATH,
  recursive=("boolean", "Delete contents too"))
t("search_files", "Recursively find files and directories whose names match a glob pattern.", path="*Starting directory",
  pattern="*Glob, e.g. **/*.log", excludePatterns=("array", "Patterns to skip"))
t("grep_content", "Search inside files for a regular expression and return matching lines with paths and line numbers.",
  path="*Directory", regex="*Regular expression", include="Glob of files to scan", ignoreCase=("boolean", "Case-insensitive"))
t("get_file_info", "Get size, creation and modified times, permissions and type of a file or directory.", path=PATH)
t("list_allowed_directories", "List the directories this server is allowed to access.")
t("find_large_files", "Find the biggest files under a directory, largest first.", path="*Directory",
  minSizeMb=("number", "Minimum size in MB"), limit=("integer", "Top N"))
t("find_recently_modified", "List files changed within the last N minutes, hours or days.", path="*Directory",
  within="*Window, e.g. 2h or 3d")
t("find_duplicate_files", "Find files with identical content under a directory by hashing them.", path="*Directory")
t("diff_files", "Show a unified diff between two text files.", left="*First file", right="*Second file",
  context=("integer", "Context lines"))
t("compute_checksum", "Compute the MD5, SHA-1 or SHA-256 checksum of a file.", path=PATH,
  algorithm=("string", "Algorithm", ["md5", "sha1", "sha256"]))
t("change_permissions", "Change a file's mode bits (chmod), e.g. 0644 or 0755.", path=PATH, mode="*Octal mode")
t("create_symlink", "Create a symbolic link pointing at a target path.", target="*Target", link_path="*Link to create")
t("zip_archive", "Compress files and directories into a .zip archive.", sources=("array", "*Paths to include"),
  output="*Path of the archive")
t("extract_archive", "Unpack a .zip, .tar or .tar.gz archive into a directory.", archive="*Archive path",
  destination="*Directory to extract into")
t("get_disk_usage", "Report total size of a directory tree and free space on its volume.", path=PATH)
t("count_lines", "Count lines, words and bytes in files (like wc).", paths=("array", "*Files"))
t("watch_directory", "Watch a directory for a while and report files created, changed or deleted.", path=PATH,
  seconds=("integer", "How long to watch"))
t("convert_encoding", "Re-encode a text file, e.g. from Latin-1 or UTF-16 to UTF-8, or fix line endings.", path=PATH,
  from_encoding="Source encoding (auto-detected if omitted)", to_encoding="*Target encoding",
  line_endings=("string", "Line endings", ["lf", "crlf"]))
TOOLS += fs.tools
