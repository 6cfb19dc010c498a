"""Sentry (snake_case) and Datadog (kebab-case)."""
from _common import Server

se = Server("sentry", titles=True)
t = se.t
ORG = "*Organization slug"
ISS = "*Issue ID or short ID, e.g. WEB-3KF"
t("find_organizations", "List the organizations the token can access.")
t("find_projects", "List projects in an organization with platform and team.", organization_slug=ORG)
t("find_teams", "List the teams of an organization and the projects each one owns.", organization_slug=ORG)
t("find_releases", "List releases of a project with new-issue counts and adoption.", organization_slug=ORG,
  project_slug="Project", query="Version filter")
t("search_issues", "Search grouped errors with natural language or Sentry syntax, e.g. 'unresolved TypeError in checkout last 24h'.",
  organization_slug=ORG, query="*Query", project_slug="Project", sort=("string", "Sort", ["date", "freq", "new", "user"]))
t("get_issue_details", "Get an issue's title, culprit, first/last seen, event count, affected users and latest stack trace.",
  issue_id=ISS, organization_slug=ORG)
t("update_issue", "Change an issue's status (resolved, ignored, unresolved), assignee or priority.", issue_id=ISS,
  organization_slug=ORG, status=("string", "Status", ["resolved", "resolvedInNextRelease", "ignored", "unresolved"]),
  assignedTo="User or team", priority=("string", "Priority", ["high", "medium", "low"]))
t("search_events", "Query raw error and transaction events with aggregates, e.g. count of 500s per endpoint today.",
  organization_slug=ORG, query="*Query or question", fields=("array", "Columns or aggregates"), statsPeriod="Window, e.g. 24h")
t("get_event_attachment", "Download an attachment (minidump, log, screenshot) stored with an event.", organization_slug=ORG,
  project_slug="*Project", event_id="*Event ID", attachment_id="Attachment ID")
t("get_trace_details", "Get a distributed trace: spans across services, durations and errors.", organization_slug=ORG,
  trace_id="*Trace ID")
t("list_issue_events", "List the individual events grouped into an issue, with tags and timestamps.", issue_id=ISS,
  organization_slug=ORG)
t("get_issue_tag_values", "Show the distribution of a tag (browser, release, environment, user) across an issue's events.",
  issue_id=ISS, tag_key="*Tag key", organization_slug=ORG)
t("analyze_issue_with_seer", "Have Seer AI analyze an issue for its root cause and propose a code fix.", issue_id=ISS,
  organization_slug=ORG, instruction="Extra guidance")
t("merge_issues", "Merge several issues that are really the same problem into one.", organization_slug=ORG,
  issue_ids=("array", "*Issue IDs"))
t("delete_issue", "Delete an issue and its events.", issue_id=ISS, organization_slug=ORG)
t("create_project", "Create a project for a team with a platform such as python or javascript-react.", organization_slug=ORG,
  team_slug="*Team", name="*Project name", platform="Platform")
t("create_dsn", "Create a new client key (DSN) for a project.", organization_slug=ORG, project_slug="*Project", name="Key name")
t("find_dsns", "List a project's client keys (DSNs).", organization_slug=ORG, project_slug="*Project")
t("list_alert_rules", "List issue and metric alert rules for a project.", organization_slug=ORG, project_slug="*Project")
t("create_metric_alert", "Alert when a metric, such as error count or p95 latency, crosses a threshold.",
  organization_slug=ORG, project_slug="*Project", name="*Name", aggregate="*e.g. count() or p95(transaction.duration)",
  threshold=("number", "*Critical threshold"), timeWindow=("integer", "Minutes"), actions=("array", "Notify targets"))
t("list_cron_monitors", "List cron monitors and whether their last check-ins were on time.", organization_slug=ORG)
t("list_uptime_monitors", "List uptime checks for URLs with their status.", organization_slug=ORG)
t("get_release_health", "Show crash-free sessions and users for a release.", organization_slug=ORG, version="*Release version",
  project_slug="Project")
t("create_release", "Register a release version and associate commits with it.", organization_slug=ORG, version="*Version",
  projects=("array", "*Projects"), refs=("array", "Repository commit refs"))
t("create_deploy", "Record that a release was deployed to an environment.", organization_slug=ORG, version="*Release",
  environment="*Environment, e.g. production")
t("get_replay", "Get a session replay: pages visited, clicks, console errors and network requests.", organization_slug=ORG,
  replay_id="*Replay ID")
t("list_user_feedback", "List feedback users submitted through the feedback widget.", organization_slug=ORG,
  project_slug="Project")
t("get_performance_summary", "Summarize slowest transactions, throughput and failure rate for a project.",
  organization_slug=ORG, project_slug="*Project", statsPeriod="Window")
t("get_doc", "Fetch a Sentry documentation page for SDK setup or configuration.", path="*Docs path")
t("whoami", "Return the authenticated user's name and email.")
TOOLS = se.tools

dd = Server("datadog")
t = dd.t
t("query-metrics", "Query timeseries metrics with a Datadog metric query, e.g. avg:system.cpu.user{service:api} by {host}.",
  query="*Metric query", from_=("integer", "*Start (epoch seconds)"), to=("integer", "*End (epoch seconds)"))
t("list-metrics", "List metric names reporting in the last hours, optionally filtered by tag.", from_=("integer", "*Since"),
  tag_filter="Tag filter")
t("search-logs", "Search logs with the log query syntax (service:web status:error @http.status_code:500).",
  query="*Log query", from_="*Start, e.g. now-15m", to="End", limit=("integer", "Max logs"), indexes=("array", "Indexes"))
t("aggregate-logs", "Count or compute statistics over logs grouped by a facet, e.g. errors per service.",
  query="*Log query", group_by=("array", "Facets"), compute=("string", "Aggregation", ["count", "avg", "sum", "pct"]),
  from_="*Start", to="End")
t("list-spans", "Search APM spans by service, resource, status or duration.", query="*Span query", from_="*Start", to="End")
t("get-trace", "Get all spans of an APM trace by trace ID.", trace_id="*Trace ID")
t("list-services", "List APM services with their latency, error rate and request rate.", env="Environment")
t("get-service-dependencies", "Show which services a service calls and which call it.", service="*Service name", env="Environment")
t("list-monitors", "List monitors with their status (OK, Alert, Warn, No Data), filterable by tag or name.",
  name="Name filter", tags="Tag filter", monitor_tags="Monitor tag filter")
t("get-monitor", "Get a monitor's query, thresholds, notification message and current state.", monitor_id=("integer", "*Monitor ID"))
t("create-monitor", "Create a metric, log, APM or synthetics monitor with thresholds and a notification message.",
  name="*Name", type="*Monitor type", query="*Monitor query", message="*Notification message with @-handles",
  thresholds=("object", "critical/warning values"))
t("update-monitor", "Change a monitor's query, thresholds, message or tags.", monitor_id=("integer", "*Monitor ID"),
  query="Query", message="Message", thresholds=("object", "Thresholds"))
t("mute-monitor", "Silence a monitor's notifications, optionally for a scope and until a time.", monitor_id=("integer", "*Monitor ID"),
  scope="Scope, e.g. host:web-1", end=("integer", "Unmute at (epoch)"))
t("schedule-downtime", "Schedule a downtime to silence monitors matching a scope during maintenance.",
  scope="*Scope, e.g. env:prod service:db", start=("integer", "Start"), end=("integer", "End"), message="Reason",
  monitor_tags=("array", "Only monitors with these tags"))
t("list-downtimes", "List active and scheduled downtimes.", current_only=("boolean", "Only active ones"))
t("cancel-downtime", "End a downtime early.", downtime_id="*Downtime ID")
t("list-dashboards", "List dashboards with titles, authors and URLs.", filter_shared=("boolean", "Only shared"))
t("get-dashboard", "Get a dashboard's widgets and their queries.", dashboard_id="*Dashboard ID")
t("create-dashboard", "Create a dashboard from widget definitions.", title="*Title", widgets=("array", "*Widget definitions"),
  layout_type=("string", "Layout", ["ordered", "free"]))
t("list-hosts", "List infrastructure hosts with tags, agents and last-reported time.", filter="Host filter",
  include_muted=("boolean", "Include muted hosts"))
t("mute-host", "Mute all monitors for a host.", hostname="*Host", end=("integer", "Until (epoch)"), message="Reason")
t("list-incidents", "List incidents with severity, state and commander.", query="Filter", page_size=("integer", "Page size"))
t("create-incident", "Declare an incident with a title, severity and customer impact.", title="*Title",
  severity=("string", "Severity", ["SEV-1", "SEV-2", "SEV-3", "SEV-4", "SEV-5"]), customer_impacted=("boolean", "Customers affected"))
t("post-event", "Post a custom event to the event stream, such as a deploy or config change.", title="*Title", text="*Body",
  tags=("array", "Tags"), alert_type=("string", "Type", ["info", "warning", "error", "success"]))
t("list-events", "List events from the event stream in a time range.", start=("integer", "*Start"), end=("integer", "*End"),
  tags="Tag filter")
t("list-slos", "List service level objectives with target, status and remaining error budget.", query="Filter")
t("get-slo-history", "Get an SLO's uptime and error budget burn over a time window.", slo_id="*SLO ID",
  from_ts=("integer", "*Start"), to_ts=("integer", "*End"))
t("list-synthetics-tests", "List synthetic API and browser tests with their last result.")
t("trigger-synthetics-tests", "Run synthetic tests now, e.g. after a deploy.", public_ids=("array", "*Test public IDs"))
t("get-usage-summary", "Get billable usage (hosts, logs ingested, APM spans) for a month.", start_month="*Month YYYY-MM")
t("list-security-signals", "List Cloud SIEM security signals by severity and rule.", query="Filter", from_="Start")
t("list-rum-events", "Search real-user monitoring events (views, errors, long tasks) from browsers and mobile apps.",
  query="*RUM query", from_="Start")
TOOLS += dd.tools
