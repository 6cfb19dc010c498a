"""Asana (snake_case) and Trello (camelCase) task and board managers."""
from _common import Server

asn = Server("asana")
TASK = "*Task GID"
t = asn.t
t("create_task", "Create a task in a project or in My Tasks, with assignee, due date, notes and custom fields.",
  name="*Task name", workspace="Workspace GID", projects=("array", "Project GIDs"), assignee="User GID or 'me'",
  due_on="Due date YYYY-MM-DD", notes="Plain-text description", custom_fields=("object", "Custom field values by GID"))
t("get_task", "Get a task's full record: assignee, due date, completion, projects, tags and followers.", task_gid=TASK,
  opt_fields="Comma-separated extra fields")
t("update_task", "Modify a task: rename it, reassign it, change the due date or mark it complete.",
  task_gid=TASK, name="New name", assignee="Assignee", due_on="Due date", completed=("boolean", "Completion flag"),
  notes="Description")
t("delete_task", "Delete a task; it goes to the trash and can be restored for 30 days.", task_gid=TASK)
t("search_tasks", "Search tasks in a workspace by text, assignee, project, due date range or completion.",
  workspace="*Workspace GID", text="Text to match", assignee_any="Assignee GIDs", projects_any="Project GIDs",
  due_on_before="Due before", completed=("boolean", "Completion filter"))
t("get_tasks_for_project", "List the tasks in a project, optionally only incomplete ones.", project_gid="*Project GID",
  completed_since="Only tasks incomplete or completed after this time ('now' for incomplete)")
t("get_my_tasks", "List tasks in the current user's My Tasks list, grouped by section.", workspace="*Workspace GID")
t("create_subtask", "Add a subtask beneath a parent task.", parent_gid=TASK, name="*Subtask name", assignee="Assignee")
t("get_subtasks", "List the subtasks of a task.", task_gid=TASK)
t("add_dependency", "Mark a task as waiting on other tasks (dependencies) so it cannot start until they finish.",
  task_gid=TASK, dependencies=("array", "*GIDs of tasks it depends on"))
t("set_task_parent", "Move a task under a new parent task, turning it into a subtask.", task_gid=TASK, parent="*Parent GID")
t("add_task_to_section", "Place a task in a section (column) of a project, optionally before or after another task.",
  section_gid="*Section GID", task="*Task GID", insert_before="Task GID", insert_after="Task GID")
t("add_followers", "Add people as collaborators who are notified of changes to a task.", task_gid=TASK,
  followers=("array", "*User GIDs"))
t("add_tag_to_task", "Apply a tag to a task.", task_gid=TASK, tag="*Tag GID")
t("create_story", "Post a comment (story) on a task; can @-mention teammates.", task_gid=TASK, text="*Comment text",
  is_pinned=("boolean", "Pin the comment"))
t("get_stories_for_task", "Get the activity feed of a task: comments and system events.", task_gid=TASK)
t("duplicate_task", "Copy a task, choosing what to include (notes, assignee, subtasks, attachments, dates).",
  task_gid=TASK, name="*Name for the copy", include=("array", "Parts to copy"))
t("get_projects", "List projects in a workspace or team, optionally archived ones.", workspace="Workspace GID",
  team="Team GID", archived=("boolean", "Archived filter"))
t("get_project", "Get a project's details: owner, members, due date, color and current status.", project_gid="*Project GID")
t("create_project", "Create a project in a team, as a list, board or timeline.", name="*Name", team="*Team GID",
  default_view=("string", "Layout", ["list", "board", "calendar", "timeline"]), due_on="Due date", notes="Description")
t("create_project_from_template", "Instantiate a project from a saved project template with a start date.",
  template_gid="*Project template GID", name="*New project name", team="Team", start_date="Date the template is anchored to")
t("create_project_status", "Post a status update on a project: on track, at risk, off track or on hold.",
  project_gid="*Project GID", title="*Title", text="Body",
  color=("string", "*Status", ["green", "yellow", "red", "blue"]))
t("get_sections_for_project", "List the sections (columns or headers) of a project.", project_gid="*Project GID")
t("create_section", "Add a new section to a project.", project_gid="*Project GID", name="*Section name")
t("get_workspaces", "List the workspaces and organizations the user belongs to.")
t("get_teams_for_workspace", "List teams in an organization.", workspace_gid="*Workspace GID")
t("get_users_for_workspace", "List users in a workspace with names and emails.", workspace_gid="*Workspace GID")
t("get_portfolio_items", "List the projects and nested portfolios inside a portfolio.", portfolio_gid="*Portfolio GID")
t("get_goals", "List goals for a workspace, team or time period with their progress metrics.",
  workspace="Workspace GID", team="Team GID", time_periods=("array", "Time period GIDs"))
t("update_goal_metric", "Record the current value of a goal's metric to update its progress.",
  goal_gid="*Goal GID", current_number_value=("number", "*New current value"))
t("get_attachments", "List the files attached to a task.", parent="*Task GID")
t("create_attachment_for_task", "Upload a file or attach an external URL to a task.", parent=TASK, url="External URL",
  name="File name", file_base64="Base64 file content")
t("get_tags", "List the tags in a workspace.", workspace="*Workspace GID")
TOOLS = asn.tools

tr = Server("trello", titles=True)
t = tr.t
CARD = "*Card ID or short link"
t("getBoards", "List the boards the member can see, including closed ones when asked.", filter=("string", "Which boards",
  ["open", "closed", "starred", "all"]))
t("getBoard", "Get a board with its lists, labels and members.", boardId="*Board ID")
t("createBoard", "Create a board, optionally from a template board, in a workspace.", name="*Board name",
  idOrganization="Workspace ID", idBoardSource="Board to copy", defaultLists=("boolean", "Add To Do / Doing / Done"))
t("closeBoard", "Close (archive) a board; it can be reopened from the closed boards page.", boardId="*Board ID")
t("getLists", "Get the lists (columns) on a board.", boardId="*Board ID")
t("createList", "Add a list to a board at a position.", boardId="*Board ID", name="*List name", pos="top, bottom or a number")
t("archiveList", "Archive a list and the cards on it.", listId="*List ID")
t("archiveAllCardsInList", "Archive every card on a list at once, e.g. to clear out the Done column.", listId="*List ID")
t("getCardsInList", "Get the cards on a list.", listId="*List ID")
t("getCardsOnBoard", "Get all open cards on a board with their labels, members and due dates.", boardId="*Board ID")
t("getCard", "Get a card with description, checklists, attachments and activity.", cardId=CARD)
t("createCard", "Add a card to a list with a description, due date, labels and members.", idList="*List ID",
  name="*Card title", desc="Description", due="Due date", idLabels=("array", "Label IDs"), idMembers=("array", "Member IDs"))
t("updateCard", "Edit a card's title, description, due date, cover or completion.", cardId=CARD, name="Title",
  desc="Description", due="Due date", dueComplete=("boolean", "Mark the due date complete"))
t("moveCard", "Move a card to another list or board, e.g. from Doing to Done.", cardId=CARD, idList="*Destination list",
  idBoard="Destination board", pos="Position")
t("archiveCard", "Archive a card (it stays searchable and can be restored).", cardId=CARD)
t("deleteCard", "Delete a card permanently; this cannot be undone.", cardId=CARD)
t("addCommentToCard", "Write a comment on a card.", cardId=CARD, text="*Comment text")
t("getCardActions", "Get the activity on a card: comments, moves and edits.", cardId=CARD, filter="Action types")
t("addMemberToCard", "Put a member on a card.", cardId=CARD, idMember="*Member ID")
t("removeMemberFromCard", "Take a member off a card.", cardId=CARD, idMember="*Member ID")
t("addLabelToCard", "Apply an existing label to a card.", cardId=CARD, idLabel="*Label ID")
t("createLabel", "Create a label on a board with a name and color.", boardId="*Board ID", name="*Label name",
  color=("string", "Color", ["green", "yellow", "orange", "red", "purple", "blue", "sky", "lime", "pink", "black"]))
t("addChecklistToCard", "Add a checklist to a card.", cardId=CARD, name="*Checklist name")
t("addChecklistItem", "Add an item to a checklist.", checklistId="*Checklist ID", name="*Item text",
  checked=("boolean", "Start ticked"))
t("updateChecklistItem", "Tick or untick a checklist item, or rename it.", cardId=CARD, checkItemId="*Item ID",
  state=("string", "State", ["complete", "incomplete"]), name="New text")
t("addAttachmentToCard", "Attach a URL or file to a card.", cardId=CARD, url="URL", name="Attachment name")
t("getBoardMembers", "List the members of a board.", boardId="*Board ID")
t("inviteMemberToBoard", "Invite someone to a board by email as a normal member, admin or observer.",
  boardId="*Board ID", email="*Email", type=("string", "Role", ["normal", "admin", "observer"]))
t("searchTrello", "Search cards, boards and members by text, with Trello operators like label: and due:.",
  query="*Search text", modelTypes="cards, boards, members")
t("getMyCards", "Get the cards the current member is assigned to across boards.")
t("createWebhook", "Register a callback URL that Trello calls whenever a board or card changes.",
  idModel="*Board or card ID", callbackURL="*HTTPS URL", description="Description")
t("copyCard", "Copy a card to a list, keeping chosen parts (checklists, attachments, labels).", idCardSource=CARD,
  idList="*Destination list", keepFromSource="Comma-separated parts to keep")
TOOLS += tr.tools
