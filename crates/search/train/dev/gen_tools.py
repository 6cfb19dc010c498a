#!/usr/bin/env python3
"""Writes tools.json: tool definitions for the dev/ops training set."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = []


def S(desc, enum=None):
    p = {"type": "string", "description": desc}
    if enum:
        p["enum"] = enum
    return p


def I(desc):
    return {"type": "integer", "description": desc}


def B(desc):
    return {"type": "boolean", "description": desc}


def A(desc, item="string"):
    return {"type": "array", "items": {"type": item}, "description": desc}


def O(desc):
    return {"type": "object", "description": desc}


def T(server, name, desc, props, req=()):
    TOOLS.append({
        "server": server,
        "name": name,
        "description": desc,
        "inputSchema": {"type": "object", "properties": props, "required": list(req)},
    })


OWN = S("Account or organization that owns the repository.")
REPO = S("Repository name without the owner.")

# ---------------------------------------------------------------- github
g = "github"
T(g, "gh_create_issue", "Open a new issue in a GitHub repository.",
  {"owner": OWN, "repo": REPO, "title": S("Issue title."), "body": S("Markdown body."),
   "labels": A("Label names to attach."), "assignees": A("Logins to assign.")},
  ["owner", "repo", "title"])
T(g, "gh_list_issues",
  "List issues in one repository, newest first. Filter by state, labels, assignee or milestone. "
  "Pull requests are left out.",
  {"owner": OWN, "repo": REPO, "state": S("Which issues to return.", ["open", "closed", "all"]),
   "labels": S("Comma-separated label names."), "assignee": S("Login, `none` or `*`."),
   "per_page": I("Page size, max 100.")},
  ["owner", "repo"])
T(g, "gh_search_issues",
  "Search issues and pull requests across all of GitHub with the issue search syntax "
  "(for example `is:open label:bug org:acme timeout`).",
  {"q": S("Search string in GitHub issue-search syntax."),
   "sort": S("Sort field.", ["comments", "reactions", "created", "updated"]),
   "order": S("asc or desc.")},
  ["q"])
T(g, "gh_close_issue", "Close an issue, optionally recording why.",
  {"owner": OWN, "repo": REPO, "issue_number": I("Issue number."),
   "state_reason": S("Why it was closed.", ["completed", "not_planned", "duplicate"])},
  ["owner", "repo", "issue_number"])
T(g, "gh_add_issue_comment",
  "Post a comment on an issue or pull request conversation.",
  {"owner": OWN, "repo": REPO, "issue_number": I("Issue or PR number."), "body": S("Comment text (Markdown).")},
  ["owner", "repo", "issue_number", "body"])
T(g, "gh_create_pull_request",
  "Create a pull request that proposes merging a head branch into a base branch. Can be opened as a draft.",
  {"owner": OWN, "repo": REPO, "title": S("PR title."), "head": S("Branch with the changes (or `user:branch`)."),
   "base": S("Branch to merge into."), "body": S("Description."), "draft": B("Open as draft.")},
  ["owner", "repo", "title", "head", "base"])
T(g, "gh_list_pull_requests", "List pull requests of a repository.",
  {"owner": OWN, "repo": REPO, "state": S("open, closed or all."), "base": S("Only PRs targeting this branch."),
   "head": S("Only PRs from this `user:branch`.")},
  ["owner", "repo"])
T(g, "gh_merge_pull_request",
  "Merge a pull request. Fails if required checks or reviews are missing.",
  {"owner": OWN, "repo": REPO, "pull_number": I("PR number."),
   "merge_method": S("How to merge.", ["merge", "squash", "rebase"]), "commit_title": S("Optional title for the merge commit.")},
  ["owner", "repo", "pull_number"])
T(g, "gh_request_reviewers",
  "Ask users or teams to review a pull request; they get notified and the PR shows up in their queue.",
  {"owner": OWN, "repo": REPO, "pull_number": I("PR number."), "reviewers": A("User logins."),
   "team_reviewers": A("Team slugs.")},
  ["owner", "repo", "pull_number"])
T(g, "gh_create_review",
  "Submit a review on a pull request: approve it, request changes, or leave a plain comment. "
  "Inline comments on specific lines may be included.",
  {"owner": OWN, "repo": REPO, "pull_number": I("PR number."),
   "event": S("Review verdict.", ["APPROVE", "REQUEST_CHANGES", "COMMENT"]), "body": S("Summary text."),
   "comments": A("Inline comments: {path, line, body}.", "object")},
  ["owner", "repo", "pull_number", "event"])
T(g, "gh_delete_branch", "Delete a branch ref from a repository.",
  {"owner": OWN, "repo": REPO, "branch": S("Branch name, without refs/heads/.")},
  ["owner", "repo", "branch"])
T(g, "gh_star_repo", "Star a repository for the authenticated user.",
  {"owner": OWN, "repo": REPO}, ["owner", "repo"])
T(g, "gh_get_file_contents",
  "Read a file (or list a directory) from a repository at a branch, tag or commit. Text is returned decoded.",
  {"owner": OWN, "repo": REPO, "path": S("Path inside the repository."), "ref": S("Branch, tag or SHA; default branch if omitted.")},
  ["owner", "repo", "path"])
T(g, "gh_rerun_workflow",
  "Re-run a GitHub Actions workflow run, either completely or just its failed jobs.",
  {"owner": OWN, "repo": REPO, "run_id": I("Workflow run id."), "failed_only": B("Only re-run failed jobs.")},
  ["owner", "repo", "run_id"])
T(g, "gh_list_workflow_runs",
  "List GitHub Actions runs for a repo, optionally for one workflow file, branch, event or status.",
  {"owner": OWN, "repo": REPO, "workflow": S("Workflow file name or id, e.g. ci.yml."), "branch": S("Branch filter."),
   "status": S("queued, in_progress, completed, success, failure...")},
  ["owner", "repo"])
T(g, "gh_create_release",
  "Publish a release for a tag, with a title and notes. The tag is created from target_commitish if it does not exist.",
  {"owner": OWN, "repo": REPO, "tag_name": S("Tag, e.g. v1.2.0."), "name": S("Release title."),
   "body": S("Release notes."), "prerelease": B("Mark as pre-release."), "generate_release_notes": B("Let GitHub write the notes."),
   "target_commitish": S("Branch or SHA for a new tag.")},
  ["owner", "repo", "tag_name"])

# ---------------------------------------------------------------- gitlab
gl = "gitlab"
PID = S("Project id or URL-encoded path (group/project).")
IID = I("Merge request IID (the number shown after !).")
T(gl, "create-merge-request", "Opens a merge request from source_branch to target_branch in a GitLab project.",
  {"project_id": PID, "source_branch": S("Branch with the changes."), "target_branch": S("Branch to merge into."),
   "title": S("MR title; prefix with 'Draft:' for a draft."), "description": S("Description."),
   "remove_source_branch": B("Delete the source branch after merge.")},
  ["project_id", "source_branch", "target_branch", "title"])
T(gl, "list-merge-requests", "Lists merge requests of a project. Filter by state, author, reviewer or labels.",
  {"project_id": PID, "state": S("opened, closed, merged, locked or all."), "author_username": S("Author."),
   "reviewer_username": S("Reviewer."), "labels": S("Comma-separated labels.")},
  ["project_id"])
T(gl, "accept-merge-request",
  "Merges an MR. With merge_when_pipeline_succeeds it is queued and merged automatically once CI passes.",
  {"project_id": PID, "merge_request_iid": IID, "squash": B("Squash commits."),
   "should_remove_source_branch": B("Remove source branch."), "merge_when_pipeline_succeeds": B("Wait for a green pipeline.")},
  ["project_id", "merge_request_iid"])
T(gl, "approve-merge-request", "Adds your approval to a merge request.",
  {"project_id": PID, "merge_request_iid": IID, "sha": S("HEAD sha the approval is for (optional safety check).")},
  ["project_id", "merge_request_iid"])
T(gl, "create-issue", "Create a GitLab issue with title, description, labels, assignees and due date.",
  {"project_id": PID, "title": S("Title."), "description": S("Markdown description."), "labels": S("Comma-separated labels."),
   "assignee_ids": A("User ids.", "integer"), "due_date": S("YYYY-MM-DD.")},
  ["project_id", "title"])
T(gl, "list-issues", "List a project's issues; supports state, labels, milestone and a text search.",
  {"project_id": PID, "state": S("opened, closed or all."), "labels": S("Comma-separated labels."),
   "search": S("Text to look for in title and description."), "assignee_username": S("Assignee.")},
  ["project_id"])
T(gl, "delete-branch", "Deletes a branch. Protected branches cannot be deleted.",
  {"project_id": PID, "branch": S("Branch name.")}, ["project_id", "branch"])
T(gl, "retry-pipeline", "Retry the failed or canceled jobs of a pipeline.",
  {"project_id": PID, "pipeline_id": I("Pipeline id.")}, ["project_id", "pipeline_id"])
T(gl, "list-pipelines", "List CI/CD pipelines of a project, newest first.",
  {"project_id": PID, "ref": S("Branch or tag."), "status": S("running, pending, success, failed, canceled..."),
   "updated_after": S("ISO 8601 timestamp.")},
  ["project_id"])
T(gl, "cancel-pipeline", "Cancel all running and pending jobs of a pipeline.",
  {"project_id": PID, "pipeline_id": I("Pipeline id.")}, ["project_id", "pipeline_id"])
T(gl, "get-job-log", "Get the trace (console output) of a CI job. Large traces are truncated to the last lines.",
  {"project_id": PID, "job_id": I("Job id."), "tail": I("Only return this many trailing lines.")},
  ["project_id", "job_id"])
T(gl, "create-note", "Adds a comment (note) to an issue or merge request.",
  {"project_id": PID, "noteable_type": S("Where to comment.", ["issue", "merge_request"]),
   "noteable_iid": I("IID of the issue or MR."), "body": S("Comment text.")},
  ["project_id", "noteable_type", "noteable_iid", "body"])
T(gl, "list-feature-flags", "List the feature flags defined in a project, with their strategies per environment.",
  {"project_id": PID, "scope": S("enabled or disabled.")}, ["project_id"])
T(gl, "update-feature-flag",
  "Change a GitLab feature flag: switch it on or off, or edit its strategies and environment scopes.",
  {"project_id": PID, "name": S("Flag name."), "active": B("true to enable, false to disable."),
   "strategies": A("Strategy objects (name, parameters, scopes).", "object")},
  ["project_id", "name"])

# ---------------------------------------------------------------- circleci
c = "circleci"
SLUG = S("Project slug, e.g. gh/acme/api.")
WID = S("Workflow UUID.")
T(c, "triggerPipeline", "Trigger a new pipeline for a project on a branch or tag, with optional pipeline parameters.",
  {"projectSlug": SLUG, "branch": S("Branch to build."), "tag": S("Tag to build (instead of branch)."),
   "parameters": O("Pipeline parameters as key/value pairs.")},
  ["projectSlug"])
T(c, "listPipelines", "Recent pipelines for a project (most recent first). Optional branch filter.",
  {"projectSlug": SLUG, "branch": S("Only this branch."), "mine": B("Only pipelines I triggered.")},
  ["projectSlug"])
T(c, "getWorkflow", "Status, timing and jobs of one workflow.",
  {"workflowId": WID}, ["workflowId"])
T(c, "rerunWorkflow", "Rerun a workflow, from the start or only from the failed jobs.",
  {"workflowId": WID, "fromFailed": B("Rerun only failed jobs."), "enableSsh": B("Rerun with SSH access.")},
  ["workflowId"])
T(c, "cancelWorkflow", "Cancels a running workflow.", {"workflowId": WID}, ["workflowId"])
T(c, "getJobArtifacts",
  "List the files a job stored as artifacts (reports, binaries, screenshots) with download URLs.",
  {"projectSlug": SLUG, "jobNumber": I("Job number.")}, ["projectSlug", "jobNumber"])
T(c, "getTestMetadata",
  "Returns the per-test results a job uploaded with store_test_results: name, class, result, run time and failure message.",
  {"projectSlug": SLUG, "jobNumber": I("Job number.")}, ["projectSlug", "jobNumber"])
T(c, "setEnvVar",
  "Create or overwrite a project-level environment variable. The value is masked afterwards and cannot be read back.",
  {"projectSlug": SLUG, "name": S("Variable name."), "value": S("Value.")}, ["projectSlug", "name", "value"])
T(c, "approveJob", "Approve a pending approval (hold) job so the rest of the workflow continues.",
  {"workflowId": WID, "approvalRequestId": S("Id of the hold job.")}, ["workflowId", "approvalRequestId"])
T(c, "getFlakyTests", "Tests that both passed and failed on the same commit recently, with how often they flipped.",
  {"projectSlug": SLUG}, ["projectSlug"])

# ---------------------------------------------------------------- kubernetes
k = "k8s"
NS = S("Namespace; defaults to `default`.")
T(k, "get_pods", "List pods with phase, restarts, age and node. Supports label and field selectors.",
  {"namespace": NS, "label_selector": S("e.g. app=web,tier!=db"), "field_selector": S("e.g. status.phase=Running"),
   "all_namespaces": B("Search every namespace.")})
T(k, "describe_pod",
  "Full detail of one pod: containers, images, conditions, volumes, resource limits and recent events. "
  "The usual first stop when a pod is Pending or CrashLoopBackOff.",
  {"namespace": NS, "name": S("Pod name.")}, ["name"])
T(k, "pod_logs", "Container output (stdout/stderr) of a pod.",
  {"namespace": NS, "name": S("Pod name."), "container": S("Container, if the pod has several."),
   "tail_lines": I("Only the last N lines."), "previous": B("Output of the previous, crashed instance."),
   "since_seconds": I("Only lines newer than this.")},
  ["name"])
T(k, "delete_pod", "Delete a pod. If a controller owns it, a replacement is scheduled.",
  {"namespace": NS, "name": S("Pod name."), "grace_period_seconds": I("0 forces immediate removal.")}, ["name"])
T(k, "scale_deployment", "Set the replica count of a Deployment.",
  {"namespace": NS, "name": S("Deployment name."), "replicas": I("Desired replicas.")}, ["name", "replicas"])
T(k, "rollout_restart",
  "Restart every pod of a Deployment, StatefulSet or DaemonSet gradually, respecting the rollout strategy.",
  {"namespace": NS, "kind": S("Workload kind.", ["deployment", "statefulset", "daemonset"]), "name": S("Workload name.")},
  ["name"])
T(k, "rollout_undo", "Roll a Deployment back to its previous revision, or to a given one.",
  {"namespace": NS, "name": S("Deployment name."), "to_revision": I("Revision number; previous if omitted.")}, ["name"])
T(k, "apply_manifest", "Server-side apply of one or more YAML/JSON manifests. Set dry_run to preview.",
  {"manifest": S("YAML or JSON, multiple documents allowed."), "namespace": NS,
   "dry_run": S("none, server or client.")},
  ["manifest"])
T(k, "exec_in_pod", "Run a command inside a running container and return its output.",
  {"namespace": NS, "pod": S("Pod name."), "container": S("Container name."), "command": A("Argv, e.g. [\"sh\",\"-c\",\"env\"].")},
  ["pod", "command"])
T(k, "drain_node",
  "Cordon a node and evict its pods so it can be taken down safely. DaemonSet pods are skipped.",
  {"node": S("Node name."), "ignore_daemonsets": B("Default true."), "delete_emptydir_data": B("Allow evicting pods with emptyDir volumes."),
   "timeout_seconds": I("Give up after this long.")},
  ["node"])
T(k, "get_events", "Cluster events (scheduling failures, image pulls, OOMKills, back-offs), newest last.",
  {"namespace": NS, "involved_object": S("Only events about this object name."), "type": S("Normal or Warning.")})
T(k, "top_pods", "Current CPU and memory usage per pod, from metrics-server.",
  {"namespace": NS, "sort_by": S("cpu or memory."), "containers": B("Break down by container.")})

# ---------------------------------------------------------------- aws
a = "aws"
IDS = A("Instance ids (i-...).")
T(a, "ec2_describe_instances", "Describe EC2 instances: state, type, IPs, tags, launch time.",
  {"region": S("AWS region."), "instance_ids": IDS, "filters": A("Filters such as {Name: tag:env, Values: [prod]}.", "object")})
T(a, "ec2_start_instances", "Start one or more stopped EC2 instances.",
  {"region": S("AWS region."), "instance_ids": IDS}, ["instance_ids"])
T(a, "ec2_stop_instances", "Stop running EC2 instances. EBS volumes are kept; set hibernate to save RAM to disk.",
  {"region": S("AWS region."), "instance_ids": IDS, "hibernate": B("Hibernate instead of a plain stop."), "force": B("Force stop.")},
  ["instance_ids"])
T(a, "ec2_reboot_instances", "Request a reboot of EC2 instances. The instances keep their IPs and disks.",
  {"region": S("AWS region."), "instance_ids": IDS}, ["instance_ids"])
T(a, "ec2_terminate_instances",
  "Permanently terminate EC2 instances. Root volumes marked DeleteOnTermination are deleted too. Cannot be undone.",
  {"region": S("AWS region."), "instance_ids": IDS}, ["instance_ids"])
T(a, "s3_list_objects", "List keys in an S3 bucket, optionally under a prefix.",
  {"bucket": S("Bucket name."), "prefix": S("Key prefix, e.g. logs/2024/."), "max_keys": I("Max keys per page.")}, ["bucket"])
T(a, "s3_get_object", "Download an object from S3 and return its body (text) or a local file path (binary).",
  {"bucket": S("Bucket name."), "key": S("Object key."), "version_id": S("Specific version.")}, ["bucket", "key"])
T(a, "s3_put_object", "Upload content to S3 under the given key, replacing any existing object.",
  {"bucket": S("Bucket name."), "key": S("Object key."), "body": S("Content, or a local path prefixed with file://."),
   "content_type": S("MIME type.")},
  ["bucket", "key", "body"])
T(a, "s3_delete_object", "Delete an object from a bucket (adds a delete marker when versioning is on).",
  {"bucket": S("Bucket name."), "key": S("Object key."), "version_id": S("Remove this exact version.")}, ["bucket", "key"])
T(a, "s3_presign_url",
  "Generate a pre-signed URL so someone without AWS credentials can download (or upload) a single object for a limited time.",
  {"bucket": S("Bucket name."), "key": S("Object key."), "expires_in": I("Lifetime in seconds, max 604800."),
   "method": S("GET or PUT.")},
  ["bucket", "key"])
T(a, "secretsmanager_get_secret_value", "Retrieve the value of a secret stored in AWS Secrets Manager.",
  {"secret_id": S("Secret name or ARN."), "version_stage": S("AWSCURRENT (default) or AWSPREVIOUS.")}, ["secret_id"])
T(a, "route53_change_record",
  "Create, update (UPSERT) or delete a resource record set in a Route 53 hosted zone.",
  {"hosted_zone_id": S("Hosted zone id."), "action": S("Change action.", ["CREATE", "UPSERT", "DELETE"]),
   "name": S("Fully qualified name."), "type": S("A, AAAA, CNAME, TXT, MX..."), "ttl": I("TTL seconds."),
   "values": A("Record values.")},
  ["hosted_zone_id", "action", "name", "type"])
T(a, "cloudwatch_get_metric_statistics",
  "Fetch datapoints for a CloudWatch metric (e.g. AWS/EC2 CPUUtilization) over a time range, aggregated per period.",
  {"namespace": S("e.g. AWS/EC2, AWS/Lambda."), "metric_name": S("e.g. CPUUtilization."),
   "dimensions": A("Name/Value pairs.", "object"), "start_time": S("ISO 8601."), "end_time": S("ISO 8601."),
   "period": I("Seconds per datapoint."), "statistics": A("Average, Sum, Maximum, Minimum, SampleCount.")},
  ["namespace", "metric_name", "start_time", "end_time"])

# ---------------------------------------------------------------- cloudflare
cf = "cloudflare"
ZID = S("Zone identifier.")
T(cf, "listZones", "List zones (domains) in the Cloudflare account.",
  {"name": S("Exact domain name."), "status": S("active, pending...")})
T(cf, "listDnsRecords", "List DNS records for a zone. Filter by type or name.",
  {"zoneId": ZID, "type": S("A, AAAA, CNAME, MX, TXT..."), "name": S("Record name.")}, ["zoneId"])
T(cf, "createDnsRecord", "Create a DNS record. Set proxied=true to route traffic through Cloudflare.",
  {"zoneId": ZID, "type": S("Record type."), "name": S("Name, e.g. api or api.example.com."), "content": S("IP address or target."),
   "ttl": I("1 = automatic."), "proxied": B("Orange-cloud the record.")},
  ["zoneId", "type", "name", "content"])
T(cf, "updateDnsRecord", "Change the content, TTL or proxy status of an existing DNS record.",
  {"zoneId": ZID, "recordId": S("Record identifier."), "content": S("New value."), "ttl": I("TTL."), "proxied": B("Proxy through Cloudflare.")},
  ["zoneId", "recordId"])
T(cf, "deleteDnsRecord", "Delete a DNS record.", {"zoneId": ZID, "recordId": S("Record identifier.")}, ["zoneId", "recordId"])
T(cf, "purgeCache",
  "Purge cached content from Cloudflare's edge: everything, or by URL, tag, host or prefix.",
  {"zoneId": ZID, "purge_everything": B("Drop the whole zone's cache."), "files": A("URLs to purge."),
   "tags": A("Cache-Tag values."), "prefixes": A("URL prefixes.")},
  ["zoneId"])
T(cf, "setDevelopmentMode",
  "Toggle development mode, which bypasses the cache for three hours so origin changes show up immediately.",
  {"zoneId": ZID, "value": S("on or off.")}, ["zoneId", "value"])
T(cf, "createAccessRule", "Block, challenge or allow an IP, range, ASN or country at the zone level.",
  {"zoneId": ZID, "mode": S("Action.", ["block", "challenge", "js_challenge", "managed_challenge", "whitelist"]),
   "target": S("ip, ip_range, asn or country."), "value": S("e.g. 198.51.100.4 or AS13335."), "notes": S("Why.")},
  ["zoneId", "mode", "target", "value"])
T(cf, "getZoneAnalytics", "Requests, bandwidth, cached vs uncached, threats and unique visitors for a zone over a time window.",
  {"zoneId": ZID, "since": S("Start, ISO 8601 or relative minutes like -1440."), "until": S("End.")}, ["zoneId"])
T(cf, "setSecurityLevel",
  "Set how aggressively visitors are challenged: essentially_off, low, medium, high or under_attack.",
  {"zoneId": ZID, "value": S("Level.", ["essentially_off", "low", "medium", "high", "under_attack"])}, ["zoneId", "value"])

# ---------------------------------------------------------------- postgres
pg = "postgres"
T(pg, "run_query", "Run a read-only SQL query (SELECT/WITH) and return rows as JSON. Writes are rejected.",
  {"sql": S("The SQL text."), "params": A("Positional parameters for $1, $2...", "string"), "limit": I("Row cap, default 500.")},
  ["sql"])
T(pg, "execute_statement",
  "Execute a statement that changes data or schema (INSERT, UPDATE, DELETE, CREATE, ALTER...) inside a transaction. "
  "Returns the affected row count.",
  {"sql": S("Statement."), "params": A("Positional parameters."), "dry_run": B("Roll back instead of committing.")},
  ["sql"])
T(pg, "list_tables", "Tables and views in a schema.", {"schema": S("Schema name, default public.")})
T(pg, "describe_table", "Columns, types, defaults, nullability, constraints and foreign keys of a table.",
  {"table": S("Table name."), "schema": S("Schema, default public.")}, ["table"])
T(pg, "explain_query", "Show the planner's plan for a query. With analyze=true the query is executed and real timings are reported.",
  {"sql": S("Query to explain."), "analyze": B("Execute and time it."), "buffers": B("Include buffer usage.")}, ["sql"])
T(pg, "list_connections",
  "Current sessions from pg_stat_activity: pid, user, client, state, how long the current statement has been running and its text.",
  {"state": S("active, idle, idle in transaction..."), "min_duration_seconds": I("Only statements running at least this long.")})
T(pg, "cancel_backend", "Cancel the running statement of a backend pid, or terminate the whole session.",
  {"pid": I("Backend process id."), "terminate": B("Kill the session instead of only its statement.")}, ["pid"])
T(pg, "list_indexes", "Indexes on a table with definition, size and scan count.",
  {"table": S("Table name."), "schema": S("Schema.")}, ["table"])
T(pg, "table_sizes", "Largest tables by total on-disk size (data + indexes + TOAST).",
  {"schema": S("Limit to one schema."), "limit": I("How many to return.")})
T(pg, "dump_database", "Write a pg_dump of a database (or selected tables) to a file.",
  {"database": S("Database name."), "format": S("plain, custom or directory."), "tables": A("Only these tables."),
   "output_path": S("Where to write it.")},
  ["database"])

# ---------------------------------------------------------------- mongodb
m = "mongodb"
DB = S("Database name.")
COL = S("Collection name.")
T(m, "find", "Query documents in a collection with a filter, projection, sort and limit.",
  {"database": DB, "collection": COL, "filter": O("MongoDB filter document."), "projection": O("Fields to include/exclude."),
   "sort": O("e.g. {createdAt: -1}"), "limit": I("Max documents, default 20.")},
  ["database", "collection"])
T(m, "aggregate", "Run an aggregation pipeline ($match, $group, $lookup, ...) on a collection.",
  {"database": DB, "collection": COL, "pipeline": A("Pipeline stages.", "object")}, ["database", "collection", "pipeline"])
T(m, "insertMany", "Insert one or more documents into a collection.",
  {"database": DB, "collection": COL, "documents": A("Documents to insert.", "object"), "ordered": B("Stop at first error.")},
  ["database", "collection", "documents"])
T(m, "updateMany", "Apply an update ($set, $unset, $inc, $rename...) to every document matching a filter.",
  {"database": DB, "collection": COL, "filter": O("Which documents."), "update": O("Update operators."), "upsert": B("Insert if nothing matches.")},
  ["database", "collection", "filter", "update"])
T(m, "deleteMany", "Delete all documents that match a filter.",
  {"database": DB, "collection": COL, "filter": O("Which documents; {} deletes everything.")}, ["database", "collection", "filter"])
T(m, "countDocuments", "Number of documents matching a filter.",
  {"database": DB, "collection": COL, "filter": O("Filter, default {}.")}, ["database", "collection"])
T(m, "listCollections", "Collections (and views) in a database.", {"database": DB}, ["database"])
T(m, "createIndex", "Build an index on one or more fields. Options: unique, sparse, TTL (expireAfterSeconds).",
  {"database": DB, "collection": COL, "keys": O("e.g. {email: 1}"), "unique": B("Enforce uniqueness."),
   "expireAfterSeconds": I("TTL index lifetime.")},
  ["database", "collection", "keys"])
T(m, "collectionSchema", "Sample documents and infer the field names, types and how often each field is present.",
  {"database": DB, "collection": COL, "sampleSize": I("Documents to sample, default 100.")}, ["database", "collection"])
T(m, "dropCollection", "Drop a collection and all of its indexes. Irreversible.",
  {"database": DB, "collection": COL}, ["database", "collection"])

# ---------------------------------------------------------------- launchdarkly
ld = "launchdarkly"
PK = S("Project key, default `default`.")
FK = S("Flag key.")
EK = S("Environment key, e.g. production.")
T(ld, "flag-list", "List feature flags in a project. Filter by tag, state or a text query.",
  {"projectKey": PK, "tag": S("Tag filter."), "filter": S("e.g. query:checkout,state:live")})
T(ld, "flag-get", "Get one flag with its variations and the targeting rules of each environment.",
  {"projectKey": PK, "flagKey": FK, "env": S("Limit output to one environment.")}, ["flagKey"])
T(ld, "flag-create", "Create a feature flag (boolean by default, or multivariate with custom variations).",
  {"projectKey": PK, "key": S("Flag key."), "name": S("Human name."), "variations": A("Variation values.", "object"),
   "tags": A("Tags."), "temporary": B("Marks the flag as short-lived.")},
  ["key", "name"])
T(ld, "flag-toggle", "Turn a flag's targeting on or off in one environment.",
  {"projectKey": PK, "flagKey": FK, "env": EK, "on": B("true = serve targeting rules, false = serve off variation.")},
  ["flagKey", "env", "on"])
T(ld, "flag-set-rollout", "Set a percentage rollout for the fallthrough rule, e.g. 10% true / 90% false.",
  {"projectKey": PK, "flagKey": FK, "env": EK, "weights": O("Variation index -> percent."), "bucketBy": S("Context attribute, default key.")},
  ["flagKey", "env", "weights"])
T(ld, "flag-archive", "Archive a flag so it disappears from the list and can no longer be evaluated by new code.",
  {"projectKey": PK, "flagKey": FK}, ["flagKey"])
T(ld, "segment-add-members", "Add context keys (users, orgs) to a segment's included list.",
  {"projectKey": PK, "env": EK, "segmentKey": S("Segment key."), "keys": A("Context keys to include.")},
  ["env", "segmentKey", "keys"])
T(ld, "flag-evaluate", "Which variation a given context (user, org, device) would receive for a flag, and why.",
  {"projectKey": PK, "flagKey": FK, "env": EK, "context": O("Context, e.g. {kind: user, key: 123, email: ...}.")},
  ["flagKey", "env", "context"])
T(ld, "flag-copy-environment", "Copy a flag's targeting from one environment to another (e.g. staging to production).",
  {"projectKey": PK, "flagKey": FK, "source": S("Source env."), "target": S("Target env.")},
  ["flagKey", "source", "target"])

# ---------------------------------------------------------------- sentry
se = "sentry"
ISS = S("Issue id (numeric) or short id like WEB-3K2.")
T(se, "list_issues",
  "List error issues for a project, sorted by frequency, recency or user impact. Accepts Sentry search (is:unresolved level:error).",
  {"organization_slug": S("Org slug."), "project_slug": S("Project slug."), "query": S("Search query."),
   "stats_period": S("24h or 14d."), "sort": S("freq, date, new, user.")},
  ["organization_slug"])
T(se, "get_issue_details", "Summary of one issue: title, culprit, first/last seen, event and user counts, tags.",
  {"issue_id": ISS}, ["issue_id"])
T(se, "get_latest_event", "The most recent event of an issue with full stack trace, breadcrumbs, request and context.",
  {"issue_id": ISS}, ["issue_id"])
T(se, "resolve_issue", "Mark an issue resolved, now or in the next release / a specific release.",
  {"issue_id": ISS, "in_release": S("Version, or `next`.")}, ["issue_id"])
T(se, "ignore_issue", "Ignore (archive) an issue forever, for a duration, or until it happens N more times.",
  {"issue_id": ISS, "duration_minutes": I("Ignore for this long."), "until_count": I("Until N more events.")}, ["issue_id"])
T(se, "assign_issue", "Assign an issue to a user or team.",
  {"issue_id": ISS, "assignee": S("user:email or team:slug.")}, ["issue_id", "assignee"])
T(se, "list_releases", "Releases known to the organization, newest first, with new-issue counts and deploys.",
  {"organization_slug": S("Org slug."), "project": S("Project slug.")}, ["organization_slug"])
T(se, "create_release", "Create a Sentry release (version) and optionally associate commits from a repository.",
  {"organization_slug": S("Org slug."), "version": S("Version string."), "projects": A("Project slugs."),
   "refs": A("{repository, commit} pairs.", "object")},
  ["organization_slug", "version", "projects"])
T(se, "upload_sourcemaps",
  "Upload JavaScript source maps for a release so minified stack frames are shown as original code.",
  {"organization_slug": S("Org slug."), "release": S("Version."), "files": A("Paths to .js and .js.map files."),
   "url_prefix": S("e.g. ~/static/js.")},
  ["organization_slug", "release", "files"])
T(se, "merge_issues", "Merge several issues into one; events are grouped together from then on.",
  {"issue_ids": A("Issue ids; the first becomes the primary.")}, ["issue_ids"])
T(se, "create_alert_rule", "Create an issue alert: when conditions match (new issue, event frequency...), notify email, Slack or PagerDuty.",
  {"project_slug": S("Project."), "name": S("Rule name."), "conditions": A("Trigger conditions.", "object"),
   "actions": A("Notifications to send.", "object"), "frequency_minutes": I("Minimum minutes between notifications.")},
  ["project_slug", "name", "conditions", "actions"])

# ---------------------------------------------------------------- datadog
dd = "datadog"
T(dd, "metrics_query", "Query timeseries points with Datadog metric query syntax, e.g. avg:system.cpu.user{env:prod} by {host}.",
  {"query": S("Metric query."), "from": S("Start (epoch seconds or `now-1h`)."), "to": S("End.")}, ["query", "from", "to"])
T(dd, "logs_search", "Search indexed logs with the log query syntax and return matching lines.",
  {"query": S("e.g. service:web status:error \"timeout\""), "from": S("Start."), "to": S("End."), "limit": I("Max lines."),
   "sort": S("timestamp or -timestamp.")},
  ["query"])
T(dd, "logs_aggregate", "Count or compute over logs grouped by facets (service, host, status...), for top-N style questions.",
  {"query": S("Filter query."), "group_by": A("Facets to group by."), "compute": S("count, cardinality:@usr.id, avg:@duration..."),
   "from": S("Start."), "to": S("End.")},
  ["query"])
T(dd, "monitors_list", "List monitors, filtered by name, tags or current state (Alert, Warn, No Data, OK).",
  {"name": S("Substring of the name."), "tags": S("Comma-separated tags."), "group_states": S("alert,warn,no data")})
T(dd, "monitor_create", "Create a monitor (metric, log, APM...) with thresholds and a notification message.",
  {"name": S("Name."), "type": S("metric alert, log alert, query alert..."), "query": S("Monitor query incl. threshold."),
   "message": S("Notification text with @handles."), "critical": I("Critical threshold."), "warning": I("Warning threshold.")},
  ["name", "type", "query", "message"])
T(dd, "monitor_mute", "Mute a monitor, entirely or for one scope (e.g. host:web-3), until a given time.",
  {"monitor_id": I("Monitor id."), "scope": S("Scope to mute."), "end": S("Unix time; forever if omitted.")}, ["monitor_id"])
T(dd, "monitor_unmute", "Unmute a monitor or one of its scopes.",
  {"monitor_id": I("Monitor id."), "scope": S("Scope."), "all_scopes": B("Clear every mute.")}, ["monitor_id"])
T(dd, "dashboards_list", "List dashboards with title, author and URL.",
  {"filter": S("Title substring.")})
T(dd, "events_post", "Post an event to the event stream (shows as an overlay on graphs), e.g. a deploy or config change.",
  {"title": S("Title."), "text": S("Body."), "tags": A("Tags."), "alert_type": S("info, warning, error, success.")},
  ["title"])
T(dd, "downtime_schedule", "Schedule a downtime that silences matching monitors for a time window, once or recurring.",
  {"scope": S("e.g. env:staging"), "monitor_tags": A("Only monitors with these tags."), "start": S("Start time."),
   "end": S("End time."), "message": S("Note."), "recurrence": S("RRULE for repeating windows.")},
  ["scope"])
T(dd, "incident_declare", "Declare a Datadog incident with a severity and commander; creates a timeline and channel.",
  {"title": S("What is broken."), "severity": S("SEV-1 .. SEV-5."), "commander": S("Handle of the incident commander."),
   "customer_impacted": B("Customers affected.")},
  ["title"])
T(dd, "spans_search", "Search APM spans/traces by service, resource, status and duration.",
  {"query": S("e.g. service:payments @duration:>2s"), "from": S("Start."), "to": S("End."), "limit": I("Max spans.")},
  ["query"])

# ---------------------------------------------------------------- pagerduty
pd = "pagerduty"
INC = S("Incident id, e.g. PT4KHLK.")
T(pd, "list_incidents", "List incidents, by default triggered and acknowledged ones. Filter by urgency, service, team and date range.",
  {"statuses": A("triggered, acknowledged, resolved."), "urgencies": A("high, low."), "service_ids": A("Service ids."),
   "since": S("Start."), "until": S("End.")})
T(pd, "get_incident", "Full incident: status, service, assignees, escalation level, timestamps.", {"incident_id": INC}, ["incident_id"])
T(pd, "create_incident", "Trigger a new incident on a service; the escalation policy pages whoever is on call.",
  {"title": S("Summary."), "service_id": S("Service."), "urgency": S("high or low."), "details": S("Body text."),
   "escalation_policy_id": S("Override the service's policy.")},
  ["title", "service_id"])
T(pd, "acknowledge_incident", "Acknowledge an incident so escalation stops while you work on it.", {"incident_id": INC}, ["incident_id"])
T(pd, "resolve_incident", "Resolve an incident, with an optional resolution note.",
  {"incident_id": INC, "resolution": S("What fixed it.")}, ["incident_id"])
T(pd, "reassign_incident", "Reassign an incident to other users or to an escalation policy.",
  {"incident_id": INC, "user_ids": A("Users."), "escalation_policy_id": S("Policy.")}, ["incident_id"])
T(pd, "add_incident_note", "Add a note to an incident's timeline.", {"incident_id": INC, "content": S("Note text.")},
  ["incident_id", "content"])
T(pd, "list_oncalls", "Who is on call, per schedule and escalation level, for now or a time range.",
  {"schedule_ids": A("Schedules."), "escalation_policy_ids": A("Policies."), "since": S("Start."), "until": S("End.")})
T(pd, "create_override", "Put someone on call in place of the scheduled person for a time window.",
  {"schedule_id": S("Schedule."), "user_id": S("Who covers."), "start": S("Start."), "end": S("End.")},
  ["schedule_id", "user_id", "start", "end"])
T(pd, "list_schedules", "On-call schedules (rotations), with a name filter.", {"query": S("Name filter.")})
T(pd, "create_maintenance_window",
  "Open a maintenance window for services: no incidents are created for them while it lasts.",
  {"service_ids": A("Services."), "start_time": S("Start."), "end_time": S("End."), "description": S("Reason.")},
  ["service_ids", "start_time", "end_time"])

# ---------------------------------------------------------------- npm registry
n = "npm_registry"
PKG = S("Package name, scoped names allowed (@scope/name).")
T(n, "search_packages", "Search the npm registry by keywords; results carry quality, popularity and maintenance scores.",
  {"text": S("Search words, qualifiers like keywords:, author: allowed."), "size": I("Results, max 250.")}, ["text"])
T(n, "package_info", "Registry metadata for a package: latest version, description, license, maintainers, repository, homepage.",
  {"name": PKG}, ["name"])
T(n, "package_versions", "All published versions of a package with publish dates and dist-tags.", {"name": PKG}, ["name"])
T(n, "download_stats", "Download counts for a package over last-day, last-week, last-month or a date range.",
  {"name": PKG, "period": S("last-day, last-week, last-month or YYYY-MM-DD:YYYY-MM-DD.")}, ["name"])
T(n, "publish_package", "Publish a package tarball or folder to the registry.",
  {"path": S("Folder or .tgz."), "tag": S("dist-tag, default latest."), "access": S("public or restricted."), "otp": S("2FA code.")},
  ["path"])
T(n, "deprecate_version", "Attach a deprecation message to a version range; npm prints it on install.",
  {"name": PKG, "range": S("Semver range, e.g. <2.0.0."), "message": S("Message; empty string un-deprecates.")},
  ["name", "range", "message"])
T(n, "unpublish_version", "Remove a published version from the registry (only allowed within 72 hours or under policy).",
  {"name": PKG, "version": S("Exact version."), "otp": S("2FA code.")}, ["name", "version"])
T(n, "dist_tag_add", "Point a dist-tag (latest, next, beta...) at a specific version.",
  {"name": PKG, "version": S("Version."), "tag": S("Tag name.")}, ["name", "version", "tag"])
T(n, "dependency_tree", "Resolve the full dependency tree of a package version, with depth and sizes.",
  {"name": PKG, "version": S("Version or range, default latest."), "depth": I("Max depth.")}, ["name"])
T(n, "audit_vulnerabilities", "Check a lockfile against the advisory database and report known vulnerabilities by severity.",
  {"lockfile": S("Contents of package-lock.json."), "min_severity": S("low, moderate, high, critical.")}, ["lockfile"])

# ---------------------------------------------------------------- vault
v = "vault"
MNT = S("KV v2 mount, default `secret`.")
PTH = S("Path under the mount, e.g. app/prod.")
T(v, "kv_read", "Read the key/value pairs at a KV v2 path (latest or a given version).",
  {"mount": MNT, "path": PTH, "version": I("Version number.")}, ["path"])
T(v, "kv_write", "Write key/value pairs to a path, creating a new version. Use cas for check-and-set.",
  {"mount": MNT, "path": PTH, "data": O("Key/value pairs."), "cas": I("Expected current version.")}, ["path", "data"])
T(v, "kv_list", "List the keys (and sub-folders, ending in /) under a path.", {"mount": MNT, "path": PTH}, ["path"])
T(v, "kv_delete", "Soft-delete the latest version, or specific versions, of a path. Data can be restored with kv_undelete.",
  {"mount": MNT, "path": PTH, "versions": A("Versions.", "integer")}, ["path"])
T(v, "kv_undelete", "Restore soft-deleted versions at a path.",
  {"mount": MNT, "path": PTH, "versions": A("Versions to bring back.", "integer")}, ["path", "versions"])
T(v, "kv_metadata_get", "Metadata of a path: current version, created/updated times, and per-version deletion state.",
  {"mount": MNT, "path": PTH}, ["path"])
T(v, "token_create", "Create a child token with policies, TTL and use limits.",
  {"policies": A("Policy names."), "ttl": S("e.g. 1h."), "num_uses": I("0 = unlimited."), "renewable": B("Renewable."),
   "display_name": S("Label.")})
T(v, "token_revoke", "Revoke a token (by accessor) and all of its children and leases.",
  {"accessor": S("Token accessor.")}, ["accessor"])
T(v, "policy_write", "Create or replace an ACL policy from HCL.",
  {"name": S("Policy name."), "policy": S("HCL body with path and capabilities.")}, ["name", "policy"])
T(v, "database_credentials_generate",
  "Get a dynamic username/password for a database role; Vault creates the user and revokes it when the lease ends.",
  {"mount": S("Database secrets engine mount, default database."), "role": S("Role name.")}, ["role"])

if __name__ == "__main__":
    with open(os.path.join(HERE, "tools.json"), "w") as f:
        json.dump(TOOLS, f, indent=1, ensure_ascii=False)
        f.write("\n")
    from collections import Counter
    print(len(TOOLS), "tools", Counter(t["server"] for t in TOOLS))
