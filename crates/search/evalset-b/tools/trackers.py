"""Jira (Atlassian, camelCase) and Linear (kebab-case) issue trackers."""
from _common import Server

jr = Server("jira", titles=True)
KEY = "*Issue key, e.g. PROJ-123"
t = jr.t
t("createIssue", "Create a Jira issue (story, task, bug, epic) in a project. Fields not listed can be passed in additionalFields.",
  projectKey="*Project key, e.g. PAY", summary="*One-line summary", issueType="*Issue type name, e.g. Bug or Story",
  description="Description in Atlassian Document Format or plain text", assigneeAccountId="Account ID of the assignee",
  priority="Priority name", labels=("array", "Labels"), additionalFields=("object", "Other field values by field ID"))
t("getIssue", "Fetch a Jira issue by key with its fields, status, assignee and, optionally, its rendered description.",
  issueIdOrKey=KEY, fields=("array", "Fields to return"), expand="Extra sections such as renderedFields or changelog")
t("editIssue", "Change fields on an existing issue: summary, description, priority, labels, due date or custom fields.",
  issueIdOrKey=KEY, fields=("object", "*Field values to set, keyed by field ID"))
t("deleteIssue", "Permanently remove an issue; its subtasks are removed too when deleteSubtasks is true.",
  issueIdOrKey=KEY, deleteSubtasks=("boolean", "Also remove subtasks"))
t("searchJql", "Run a JQL query and return matching issues, e.g. 'project = PAY AND status = \"In Progress\"'.",
  jql="*JQL query string", maxResults=("integer", "Page size (max 100)"), fields=("array", "Fields to include"),
  nextPageToken="Token for the next page")
t("getTransitions", "List the workflow transitions currently available for an issue (for example Start Progress, Done).",
  issueIdOrKey=KEY)
t("transitionIssue", "Move an issue through its workflow to a new status by applying a transition, with optional resolution and comment.",
  issueIdOrKey=KEY, transitionId="*Transition ID from getTransitions", resolution="Resolution name such as Fixed or Won't Do",
  comment="Comment to add with the transition")
t("addComment", "Add a comment to a Jira issue, optionally restricted to a role or group.",
  issueIdOrKey=KEY, body="*Comment text", visibility=("object", "Restrict to a role or group"))
t("getComments", "Return the comment thread of an issue, newest or oldest first.",
  issueIdOrKey=KEY, orderBy=("string", "Sort", ["created", "-created"]), maxResults=("integer", "Page size"))
t("assignIssue", "Assign an issue to a user, or unassign it by passing a null account ID.",
  issueIdOrKey=KEY, accountId="Account ID of the new assignee; null to unassign")
t("addWatcher", "Subscribe a user to notifications about an issue.", issueIdOrKey=KEY, accountId="*Account ID to add")
t("linkIssues", "Create a link between two issues, such as 'blocks', 'duplicates' or 'relates to'.",
  inwardIssue="*Key of the inward issue", outwardIssue="*Key of the outward issue", linkType="*Link type name, e.g. Blocks")
t("createSubtask", "Create a sub-task under a parent issue.", parentKey="*Parent issue key", summary="*Summary",
  assigneeAccountId="Assignee account ID")
t("addWorklog", "Log time spent on an issue, e.g. '2h 30m', with a start time and comment.",
  issueIdOrKey=KEY, timeSpent="*Duration in Jira format, e.g. 3h 15m", started="Start timestamp", comment="What was done")
t("getWorklogs", "List the time-tracking entries recorded against an issue.", issueIdOrKey=KEY)
t("getIssueChangelog", "Show the history of field changes on an issue: who changed what and when.",
  issueIdOrKey=KEY, maxResults=("integer", "Page size"))
t("addAttachment", "Attach a file to an issue from base64 content or a URL.",
  issueIdOrKey=KEY, filename="*File name", content="Base64 content", url="URL to fetch instead")
t("cloneIssue", "Duplicate an issue into the same or another project, copying summary, description and links.",
  issueIdOrKey=KEY, targetProjectKey="Project to copy it into", summaryPrefix="Prefix for the new summary, default 'CLONE - '")
t("bulkCreateIssues", "Create up to 50 issues in one request.", issueUpdates=("array", "*Issue definitions (fields objects)"))
t("listBoards", "List Scrum and Kanban boards, optionally for one project.",
  projectKeyOrId="Project filter", type=("string", "Board type", ["scrum", "kanban"]))
t("getBoardBacklog", "Return the backlog of a board: issues not yet in any active or future sprint.",
  boardId=("integer", "*Board ID"), jql="Extra JQL filter")
t("listSprints", "List the sprints on a board by state.", boardId=("integer", "*Board ID"),
  state=("string", "Sprint state", ["future", "active", "closed"]))
t("createSprint", "Create a future sprint on a Scrum board with an optional goal and dates.",
  originBoardId=("integer", "*Board ID"), name="*Sprint name", goal="Sprint goal", startDate="Start", endDate="End")
t("startSprint", "Start a future sprint, setting its start and end dates.", sprintId=("integer", "*Sprint ID"),
  startDate="*Start date", endDate="*End date")
t("completeSprint", "Close an active sprint; unfinished issues move to the backlog or a target sprint.",
  sprintId=("integer", "*Sprint ID"), moveIncompleteTo="Sprint ID for unfinished work")
t("moveIssuesToSprint", "Move one or more issues into a sprint.", sprintId=("integer", "*Sprint ID"),
  issues=("array", "*Issue keys"))
t("rankIssues", "Reorder issues on the backlog by ranking them before or after another issue.",
  issues=("array", "*Issue keys to rank"), rankBeforeIssue="Put them before this issue", rankAfterIssue="Or after this one")
t("listProjects", "List Jira projects visible to you, with keys, leads and project types.", query="Filter by name or key")
t("getProject", "Get a project's details: lead, components, issue types and versions.", projectIdOrKey="*Project key or ID")
t("createVersion", "Create a fix version in a project.", projectId="*Project ID", name="*Version name, e.g. 2.4.0",
  releaseDate="Planned release date", description="Description")
t("releaseVersion", "Mark a version as released on a date, optionally moving its unresolved issues to another version.",
  versionId="*Version ID", releaseDate="Release date", moveUnfixedIssuesTo="Version ID for unresolved issues")
t("listComponents", "List a project's components and their default assignees.", projectIdOrKey="*Project key")
t("findUsers", "Find Atlassian users by name or email to get their account IDs.", query="*Name or email fragment")
t("getCurrentUser", "Return the account of the user the connection authenticates as.")
t("createFilter", "Save a JQL query as a named filter that can be shared and subscribed to.",
  name="*Filter name", jql="*JQL", description="Description", favourite=("boolean", "Star the filter"))
TOOLS = jr.tools

ln = Server("linear")
t = ln.t
ID = "*Issue ID or identifier, e.g. ENG-421"
t("create-issue", "Create a Linear issue in a team. Set parentId to make it a sub-issue.",
  teamId="*Team ID or key", title="*Title", description="Markdown description", assigneeId="Assignee user ID",
  priority=("integer", "0 none, 1 urgent, 2 high, 3 medium, 4 low"), labelIds=("array", "Label IDs"),
  projectId="Project ID", parentId="Parent issue for sub-issues", estimate=("integer", "Estimate points"))
t("get-issue", "Get one issue with its state, assignee, labels, project, cycle and attachments.", id=ID)
t("update-issue", "Update an issue's title, description, state, priority, assignee, estimate, labels or due date.",
  id=ID, title="Title", stateId="Workflow state ID", priority=("integer", "Priority 0-4"), assigneeId="Assignee",
  estimate=("integer", "Estimate"), dueDate="Due date", labelIds=("array", "Replace labels"))
t("list-issues", "List issues with filters for team, assignee, state, label, project or cycle.",
  teamId="Team", assigneeId="Assignee ('me' for yourself)", state="State name", label="Label name",
  projectId="Project", first=("integer", "Number of results"))
t("list-my-issues", "List the issues assigned to the current user, most recently updated first.",
  includeCompleted=("boolean", "Include done and canceled"))
t("search-issues", "Full-text search over issue titles, descriptions and comments.", query="*Search text",
  teamId="Limit to a team")
t("archive-issue", "Archive an issue so it disappears from views; it can be restored later.", id=ID)
t("delete-issue", "Move an issue to the trash (kept 30 days).", id=ID)
t("create-issue-relation", "Mark an issue as blocking, blocked by, related to or a duplicate of another.",
  issueId=ID, relatedIssueId="*The other issue", type=("string", "*Relation", ["blocks", "related", "duplicate"]))
t("create-comment", "Post a Markdown comment on an issue; reply in a thread with parentId.",
  issueId=ID, body="*Markdown body", parentId="Comment to reply to")
t("list-comments", "List comments on an issue.", issueId=ID)
t("create-attachment", "Attach a link (URL with title) to an issue, such as a Figma frame or a Sentry event.",
  issueId=ID, url="*URL", title="*Title", subtitle="Subtitle")
t("subscribe-to-issue", "Follow an issue to get notified about its updates.", id=ID, userId="User to subscribe (default: me)")
t("list-teams", "List the teams in the workspace with their keys.")
t("get-team", "Get a team with its members, workflow states and cycle settings.", id="*Team ID or key")
t("list-issue-statuses", "List the workflow states of a team (Backlog, Todo, In Progress, Done, Canceled).", teamId="*Team ID")
t("list-issue-labels", "List labels available in the workspace or a team.", teamId="Team filter")
t("create-issue-label", "Create a new label, optionally scoped to a team, with a color.",
  name="*Label name", color="Hex color", teamId="Team scope")
t("list-users", "List workspace members, filterable by name or email.", query="Name or email")
t("list-cycles", "List a team's cycles (sprints): past, current and upcoming.", teamId="*Team ID",
  type=("string", "Which cycles", ["current", "previous", "next", "all"]))
t("add-issue-to-cycle", "Put an issue into a cycle.", issueId=ID, cycleId="*Cycle ID")
t("list-projects", "List projects with state, lead, target date and progress.", teamId="Team filter",
  state=("string", "Project state", ["planned", "started", "paused", "completed", "canceled"]))
t("get-project", "Get a project with its description, milestones, members and progress.", id="*Project ID or slug")
t("create-project", "Create a project for one or more teams with a lead and target date.",
  name="*Name", teamIds=("array", "*Teams"), leadId="Lead user", targetDate="Target date", description="Description")
t("update-project", "Change a project's name, state, lead, dates or description.", id="*Project ID",
  state="New state", leadId="Lead", targetDate="Target date")
t("create-project-milestone", "Add a milestone to a project with a target date.", projectId="*Project",
  name="*Milestone name", targetDate="Target date")
t("create-project-update", "Write a project update for stakeholders, marking the project's health as on track, at risk or off track.",
  projectId="*Project", body="*Update text", health=("string", "Health", ["onTrack", "atRisk", "offTrack"]))
t("list-documents", "List documents in the workspace or in a project.", projectId="Project filter", query="Title filter")
t("get-document", "Read a Linear document's Markdown content.", id="*Document ID or slug")
t("create-document", "Write a new document, optionally attached to a project.", title="*Title", content="Markdown",
  projectId="Project")
t("list-initiatives", "List initiatives (groups of projects toward a company goal) with status and owner.")
t("create-initiative", "Create an initiative grouping several projects under an owner and target date.",
  name="*Name", ownerId="Owner", targetDate="Target date", projectIds=("array", "Projects to include"))
t("list-customers", "List customers tracked in Linear with their tier, revenue and linked requests.", query="Name filter")
t("create-customer-need", "Record a customer request and link it to an issue or project.",
  customerId="*Customer", body="*What the customer asked for", issueId="Issue to link", projectId="Project to link")
TOOLS += ln.tools
