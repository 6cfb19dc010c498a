"""GitHub and GitLab: repositories, issues, pull/merge requests, CI."""
from _common import Server

gh = Server("github", titles=True)
OWNER = "*Repository owner (user or organization login)"
REPO = "*Repository name"
t = gh.t
t("create_issue", "Create a new issue in a GitHub repository. Supports labels, assignees and a milestone.",
  owner=OWNER, repo=REPO, title="*Issue title", body="Issue body in Markdown",
  labels=("array", "Labels to apply"), assignees=("array", "Logins to assign"), milestone=("integer", "Milestone number"))
t("get_issue", "Get the details of a specific issue, including its state, labels and author.",
  owner=OWNER, repo=REPO, issue_number=("integer", "*The number of the issue"))
t("update_issue", "Update an existing issue: change its title, body, state, labels or assignees.",
  owner=OWNER, repo=REPO, issue_number=("integer", "*Issue number"), title="New title", body="New body",
  state=("string", "New state", ["open", "closed"]), labels=("array", "Replacement label set"))
t("list_issues", "List issues in a repository, filtered by state, labels, assignee or creation date. Pull requests are excluded.",
  owner=OWNER, repo=REPO, state=("string", "Filter by state", ["open", "closed", "all"]),
  labels=("array", "Only issues with all of these labels"), since="Only issues updated after this ISO 8601 time",
  per_page=("integer", "Results per page (max 100)"))
t("search_issues", "Search issues and pull requests across GitHub using the issue search syntax (is:open label:bug author:...).",
  q="*Search query using GitHub search qualifiers", sort=("string", "Sort field", ["comments", "reactions", "created", "updated"]),
  order=("string", "Sort order", ["asc", "desc"]))
t("add_issue_comment", "Add a comment to an issue or pull request conversation.",
  owner=OWNER, repo=REPO, issue_number=("integer", "*Issue or pull request number"), body="*Comment text (Markdown)")
t("list_issue_comments", "List the comments on an issue, oldest first.",
  owner=OWNER, repo=REPO, issue_number=("integer", "*Issue number"), since="Only comments updated after this time")
t("lock_issue", "Lock an issue's conversation so only collaborators can comment, optionally recording a reason such as too heated or spam.",
  owner=OWNER, repo=REPO, issue_number=("integer", "*Issue number"),
  lock_reason=("string", "Reason", ["off-topic", "too heated", "resolved", "spam"]))
t("create_pull_request", "Open a pull request proposing to merge a head branch into a base branch.",
  owner=OWNER, repo=REPO, title="*Pull request title", head="*Branch containing the changes", base="*Branch to merge into",
  body="Description", draft=("boolean", "Open as a draft"))
t("get_pull_request", "Fetch one pull request with its head and base refs, mergeability and review state.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"))
t("list_pull_requests", "List pull requests in a repository, optionally filtered by state, head or base branch.",
  owner=OWNER, repo=REPO, state=("string", "State filter", ["open", "closed", "all"]), base="Base branch filter", head="Head filter (user:branch)")
t("merge_pull_request", "Merge a pull request using a merge commit, squash or rebase.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"),
  merge_method=("string", "How to merge", ["merge", "squash", "rebase"]), commit_title="Title for the merge commit")
t("get_pull_request_diff", "Return the unified diff of a pull request.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"))
t("get_pull_request_files", "List the files changed in a pull request with additions, deletions and patch hunks.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"))
t("create_pull_request_review", "Submit a review on a pull request: approve, request changes or leave a comment, with optional line comments.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"),
  event=("string", "*Review action", ["APPROVE", "REQUEST_CHANGES", "COMMENT"]), body="Review summary",
  comments=("array", "Line comments as path/line/body objects"))
t("request_reviewers", "Ask specific users or teams to review a pull request.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"),
  reviewers=("array", "User logins"), team_reviewers=("array", "Team slugs"))
t("update_pull_request_branch", "Bring a pull request's head branch up to date with its base by merging the latest base commits into it.",
  owner=OWNER, repo=REPO, pull_number=("integer", "*Pull request number"))
t("create_branch", "Create a new branch from an existing branch or commit SHA.",
  owner=OWNER, repo=REPO, branch="*Name of the new branch", from_branch="Source branch (defaults to the default branch)")
t("list_branches", "List the branches of a repository, with protection status.",
  owner=OWNER, repo=REPO, protected=("boolean", "Only protected branches"))
t("delete_branch", "Delete a branch ref from the repository.", owner=OWNER, repo=REPO, branch="*Branch to remove")
t("get_file_contents", "Read a file or directory listing from a repository at a given ref.",
  owner=OWNER, repo=REPO, path="*Path inside the repository", ref="Branch, tag or commit SHA")
t("create_or_update_file", "Commit a single file to a branch, creating it or replacing its contents. Requires the blob SHA when replacing.",
  owner=OWNER, repo=REPO, path="*File path", content="*New file content", message="*Commit message",
  branch="*Target branch", sha="SHA of the blob being replaced")
t("push_files", "Push several files to a branch in one commit.",
  owner=OWNER, repo=REPO, branch="*Branch to push to", files=("array", "*Objects with path and content"), message="*Commit message")
t("list_commits", "List commits on a branch or touching a path, newest first.",
  owner=OWNER, repo=REPO, sha="Branch or SHA to start from", path="Only commits touching this path", author="Author login or email")
t("get_commit", "Show a single commit with its message, author, stats and changed files.",
  owner=OWNER, repo=REPO, sha="*Commit SHA")
t("search_code", "Search source code across GitHub repositories with code search qualifiers like repo:, language: and path:.",
  q="*Code search query", per_page=("integer", "Results per page"))
t("search_repositories", "Find repositories by name, topic, language or stars.", query="*Repository search query")
t("create_repository", "Create a new repository for the authenticated user or an organization.",
  name="*Repository name", description="Short description", private=("boolean", "Make it private"),
  org="Organization to create it in", auto_init=("boolean", "Initialize with a README"))
t("fork_repository", "Fork a repository into your account or an organization.",
  owner=OWNER, repo=REPO, organization="Organization to fork into")
t("list_workflow_runs", "List GitHub Actions workflow runs for a repository, filtered by branch, event or status.",
  owner=OWNER, repo=REPO, workflow_id="Workflow file name or ID", branch="Branch filter",
  status=("string", "Run status", ["queued", "in_progress", "completed", "failure", "success"]))
t("rerun_failed_jobs", "Re-run only the failed jobs of a GitHub Actions workflow run.",
  owner=OWNER, repo=REPO, run_id=("integer", "*Workflow run ID"))
t("get_job_logs", "Download the logs of a workflow job, or of all failed jobs in a run, to diagnose CI failures.",
  owner=OWNER, repo=REPO, job_id=("integer", "Job ID"), run_id=("integer", "Run ID, used with failed_only"),
  failed_only=("boolean", "Only logs of failed jobs"))
t("create_release", "Publish a release for a tag, with generated or hand-written notes.",
  owner=OWNER, repo=REPO, tag_name="*Tag for the release", name="Release title", body="Release notes",
  prerelease=("boolean", "Mark as pre-release"), generate_release_notes=("boolean", "Let GitHub write the notes"))
t("list_code_scanning_alerts", "List code scanning (CodeQL) security alerts for a repository.",
  owner=OWNER, repo=REPO, state=("string", "Alert state", ["open", "dismissed", "fixed"]), severity="Severity filter")
t("list_notifications", "List notifications in the authenticated user's inbox, such as review requests and mentions.",
  all=("boolean", "Include read notifications"), participating=("boolean", "Only where you participate"))
t("star_repository", "Star a repository for the authenticated user.", owner=OWNER, repo=REPO)
TOOLS = gh.tools

gl = Server("gitlab")
PROJ = "*Project ID or URL-encoded path (group/project)"
t = gl.t
t("create_issue", "Create an issue in a GitLab project with optional labels, assignees, milestone and due date.",
  project_id=PROJ, title="*Title", description="Description (Markdown)", labels="Comma-separated label names",
  assignee_ids=("array", "User IDs to assign"), due_date="Due date YYYY-MM-DD", confidential=("boolean", "Hide from non-members"))
t("get_issue", "Retrieve a single project issue by its internal ID (iid).", project_id=PROJ, issue_iid=("integer", "*Issue IID"))
t("list_issues", "List issues in a project or across all projects you can see, filtered by state, labels, milestone or assignee.",
  project_id="Project ID (omit for all visible issues)", state=("string", "State", ["opened", "closed", "all"]),
  labels="Comma-separated labels", milestone="Milestone title", assignee_username="Assignee username")
t("update_issue", "Edit an issue's title, description, labels, assignees or state; set state_event to close or reopen it.",
  project_id=PROJ, issue_iid=("integer", "*Issue IID"), title="Title", description="Description",
  state_event=("string", "Close or reopen", ["close", "reopen"]), add_labels="Labels to add", remove_labels="Labels to remove")
t("create_issue_note", "Post a note (comment) on an issue.", project_id=PROJ, issue_iid=("integer", "*Issue IID"), body="*Note body")
t("move_issue", "Move an issue to a different project, keeping its history.",
  project_id=PROJ, issue_iid=("integer", "*Issue IID"), to_project_id=("integer", "*Destination project ID"))
t("create_issue_link", "Link two issues as related, blocking or blocked by.",
  project_id=PROJ, issue_iid=("integer", "*Source issue IID"), target_project_id="*Project of the other issue",
  target_issue_iid=("integer", "*Other issue IID"), link_type=("string", "Relation", ["relates_to", "blocks", "is_blocked_by"]))
t("create_merge_request", "Open a merge request from a source branch into a target branch.",
  project_id=PROJ, source_branch="*Source branch", target_branch="*Target branch", title="*Title",
  description="Description", remove_source_branch=("boolean", "Delete the source branch after merge"),
  squash=("boolean", "Squash commits on merge"))
t("get_merge_request", "Get a merge request with its pipeline status, approvals and merge status.",
  project_id=PROJ, merge_request_iid=("integer", "*Merge request IID"))
t("list_merge_requests", "List merge requests filtered by state, author, reviewer or target branch.",
  project_id=PROJ, state=("string", "State", ["opened", "closed", "merged", "all"]), author_username="Author",
  reviewer_username="Reviewer", target_branch="Target branch")
t("merge_merge_request", "Accept a merge request, optionally only when its pipeline succeeds.",
  project_id=PROJ, merge_request_iid=("integer", "*Merge request IID"), squash=("boolean", "Squash commits"),
  merge_when_pipeline_succeeds=("boolean", "Wait for the pipeline"))
t("approve_merge_request", "Approve a merge request as the current user.",
  project_id=PROJ, merge_request_iid=("integer", "*Merge request IID"), sha="HEAD SHA the approval applies to")
t("get_merge_request_diffs", "Get the file changes of a merge request as diffs.",
  project_id=PROJ, merge_request_iid=("integer", "*Merge request IID"))
t("create_merge_request_thread", "Start a discussion thread on a merge request, optionally anchored to a line of the diff.",
  project_id=PROJ, merge_request_iid=("integer", "*Merge request IID"), body="*Comment",
  position=("object", "Diff position (base_sha, head_sha, new_path, new_line)"))
t("rebase_merge_request", "Rebase a merge request's source branch onto its target branch.",
  project_id=PROJ, merge_request_iid=("integer", "*Merge request IID"))
t("list_pipelines", "List CI/CD pipelines of a project, filtered by ref, status or source.",
  project_id=PROJ, ref="Branch or tag", status=("string", "Status", ["running", "pending", "success", "failed", "canceled"]))
t("get_pipeline", "Get one pipeline with its status, duration and triggering user.", project_id=PROJ, pipeline_id=("integer", "*Pipeline ID"))
t("create_pipeline", "Trigger a new pipeline for a branch or tag, with optional CI variables.",
  project_id=PROJ, ref="*Branch or tag", variables=("array", "key/value CI variables"))
t("retry_pipeline", "Retry the failed or canceled jobs in a pipeline.", project_id=PROJ, pipeline_id=("integer", "*Pipeline ID"))
t("cancel_pipeline", "Cancel a running pipeline and all its jobs.", project_id=PROJ, pipeline_id=("integer", "*Pipeline ID"))
t("list_pipeline_jobs", "List the jobs of a pipeline with stage, status and runner.",
  project_id=PROJ, pipeline_id=("integer", "*Pipeline ID"), scope="Job status filter")
t("get_job_trace", "Get the console output (trace) of a CI job.", project_id=PROJ, job_id=("integer", "*Job ID"))
t("get_file", "Read a file from the repository at a branch, tag or commit.",
  project_id=PROJ, file_path="*Path of the file", ref="*Branch, tag or commit")
t("create_or_update_file", "Commit one file to a branch, creating or overwriting it.",
  project_id=PROJ, file_path="*Path", branch="*Branch", content="*Content", commit_message="*Commit message")
t("get_repository_tree", "List files and directories in the repository, optionally recursively.",
  project_id=PROJ, path="Sub-directory", ref="Branch or tag", recursive=("boolean", "Walk the whole tree"))
t("create_branch", "Create a branch from a ref.", project_id=PROJ, branch="*New branch name", ref="*Source branch or SHA")
t("list_commits", "List repository commits, optionally in a date range or for a path.",
  project_id=PROJ, ref_name="Branch or tag", since="ISO 8601 start", until="ISO 8601 end", path="File path")
t("compare_refs", "Compare two branches, tags or commits and return the commits and diffs between them.",
  project_id=PROJ, from_="*Base ref", to="*Head ref")
t("create_project", "Create a new GitLab project in a namespace.",
  name="*Project name", namespace_id=("integer", "Group or user namespace ID"),
  visibility=("string", "Visibility", ["private", "internal", "public"]), initialize_with_readme=("boolean", "Add a README"))
t("fork_project", "Fork a project into another namespace.", project_id=PROJ, namespace_path="Destination namespace")
t("list_project_members", "List the members of a project with their access levels.", project_id=PROJ, query="Filter by name")
t("create_milestone", "Create a milestone in a project with start and due dates.",
  project_id=PROJ, title="*Milestone title", start_date="Start date", due_date="Due date", description="Description")
t("create_wiki_page", "Add a page to the project wiki.", project_id=PROJ, title="*Page title", content="*Page content",
  format=("string", "Markup", ["markdown", "rdoc", "asciidoc"]))
t("search_blobs", "Search the code in a project for a string and return matching lines with file paths.",
  project_id=PROJ, search="*Text to look for", ref="Branch")
TOOLS += gl.tools
