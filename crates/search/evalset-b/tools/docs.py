"""Notion (kebab-case) and Confluence (camelCase) knowledge bases."""
from _common import Server

nt = Server("notion")
t = nt.t
PAGE = "*Page ID or URL"
DB = "*Database ID"
t("search", "Search the workspace for pages and databases whose titles match a query; filter to pages or databases.",
  query="*Text to look for in titles", filter=("string", "Object type", ["page", "database"]),
  sort_direction=("string", "Order by last edited", ["ascending", "descending"]))
t("fetch-page", "Fetch a page's properties and its content as Markdown.", page_id=PAGE)
t("create-page", "Create a page under a parent page or as a row in a database, with Markdown content and property values.",
  parent_id="*Parent page or database ID", title="*Page title", content="Markdown body",
  properties=("object", "Database property values"), icon="Emoji icon")
t("update-page-properties", "Set property values on a page or database row, such as Status, Owner or Due.",
  page_id=PAGE, properties=("object", "*Property values by name"))
t("append-blocks", "Append content (paragraphs, headings, to-dos, code) to the end of a page or after a block.",
  block_id="*Page or block ID", markdown="*Content to add", after="Block to insert after")
t("get-block-children", "Read the child blocks of a page or block, one level deep.", block_id="*Block ID",
  page_size=("integer", "Max blocks"))
t("update-block", "Replace the text or checked state of a single block.", block_id="*Block ID", text="New text",
  checked=("boolean", "To-do state"))
t("delete-block", "Delete a block; deleting a page's block moves the page to trash.", block_id="*Block ID")
t("archive-page", "Move a page to the trash (archive it); restore with restore-page.", page_id=PAGE)
t("restore-page", "Bring a trashed page back.", page_id=PAGE)
t("move-page", "Move a page under a different parent page or into a database.", page_id=PAGE, new_parent_id="*New parent")
t("duplicate-page", "Duplicate a page with all its content into the same parent.", page_id=PAGE)
t("query-database", "Query a database with filters and sorts, returning matching rows and their properties.",
  database_id=DB, filter=("object", "Notion filter object"), sorts=("array", "Sort objects"), page_size=("integer", "Page size"))
t("get-database", "Retrieve a database's schema: property names, types and select options.", database_id=DB)
t("create-database", "Create a database (table) inside a page with the given property schema.",
  parent_page_id="*Parent page", title="*Title", properties=("object", "*Property schema"))
t("update-database", "Rename a database or add, rename and remove properties in its schema.", database_id=DB,
  title="New title", properties=("object", "Schema changes"))
t("create-comment", "Comment on a page or reply in an existing discussion.", page_id="Page to comment on",
  discussion_id="Discussion to reply to", text="*Comment")
t("list-comments", "List the unresolved comments on a page or block.", block_id="*Page or block ID")
t("list-users", "List the people and bots in the workspace.")
t("get-user", "Get a user's name, avatar and email by ID.", user_id="*User ID")
t("get-self", "Return the bot user this integration is connected as and its workspace.")
t("list-teamspaces", "List the teamspaces the integration can see.")
t("get-page-property", "Read one property of a page, paging through long relation or rollup values.",
  page_id=PAGE, property_id="*Property ID")
t("upload-file", "Upload a file and get a file ID to use in file blocks or file properties.",
  filename="*File name", content_base64="*Base64 data", content_type="MIME type")
t("create-view", "Add a view (table, board, calendar, timeline, gallery) to a database.", database_id=DB,
  name="*View name", type=("string", "*Layout", ["table", "board", "calendar", "timeline", "gallery", "list"]))
t("get-page-history", "List earlier versions of a page with editor and timestamp.", page_id=PAGE)
t("export-page", "Export a page and its sub-pages to Markdown, HTML or PDF.", page_id=PAGE,
  format=("string", "*Output format", ["markdown", "html", "pdf"]), include_subpages=("boolean", "Include sub-pages"))
t("set-page-permissions", "Share a page with a person or group, or change their access level.", page_id=PAGE,
  principal="*User or group ID", access=("string", "*Level", ["full_access", "can_edit", "can_comment", "can_view", "none"]))
t("publish-to-web", "Publish a page to the web and return its public URL, or unpublish it.", page_id=PAGE,
  enabled=("boolean", "*Publish or unpublish"), allow_search_engines=("boolean", "Allow indexing"))
t("create-template", "Create a database template so new rows start with preset content.", database_id=DB,
  name="*Template name", content="Markdown body")
TOOLS = nt.tools

cf = Server("confluence", titles=True)
t = cf.t
PID = "*Page ID"
t("getSpaces", "List Confluence spaces with their keys, names and types.", type=("string", "Space type", ["global", "personal"]),
  limit=("integer", "Page size"))
t("getSpace", "Get a space's details, homepage and permissions.", spaceKey="*Space key")
t("createSpace", "Create a new space with a key, name and description.", key="*Space key", name="*Space name",
  description="Description", private=("boolean", "Only you can see it"))
t("getPage", "Get a page with its body in storage format or Markdown, version and ancestors.", pageId=PID,
  bodyFormat=("string", "Body format", ["storage", "atlas_doc_format", "markdown"]))
t("getPageByTitle", "Find a page by its exact title in a space.", spaceKey="*Space key", title="*Page title")
t("createPage", "Create a page in a space, optionally as a child of another page.", spaceKey="*Space key",
  title="*Title", body="*Body (storage format or Markdown)", parentId="Parent page ID")
t("updatePage", "Replace a page's title or body. The version number must be the current version plus one.",
  pageId=PID, title="*Title", body="*New body", version=("integer", "*New version number"),
  versionMessage="Note shown in page history")
t("deletePage", "Move a page to the space trash.", pageId=PID)
t("movePage", "Move a page to another parent or space.", pageId=PID, targetId="*New parent page ID",
  position=("string", "Placement", ["append", "before", "after"]))
t("copyPage", "Copy a page, and optionally its children and attachments, to a destination.", pageId=PID,
  destinationPageId="*Destination parent", copyChildren=("boolean", "Copy descendants"))
t("getPageChildren", "List the child pages of a page.", pageId=PID)
t("getPageAncestors", "Return the breadcrumb of parents above a page.", pageId=PID)
t("getPageVersions", "List the versions of a page: number, author, date and message.", pageId=PID)
t("restorePageVersion", "Roll a page back to an earlier version.", pageId=PID, versionNumber=("integer", "*Version to restore"))
t("searchCql", "Search content with CQL, e.g. 'type = page AND space = ENG AND text ~ \"runbook\"'.",
  cql="*CQL query", limit=("integer", "Max results"))
t("getFooterComments", "Get the comments at the bottom of a page.", pageId=PID)
t("getInlineComments", "Get comments anchored to highlighted text on a page, with resolution status.", pageId=PID,
  resolutionStatus=("string", "Filter", ["open", "resolved"]))
t("createFooterComment", "Add a comment at the bottom of a page or reply to one.", pageId=PID, body="*Comment",
  parentCommentId="Comment to reply to")
t("createInlineComment", "Comment on a specific piece of text in a page.", pageId=PID, body="*Comment",
  textSelection="*Exact text to anchor to")
t("resolveInlineComment", "Mark an inline comment thread as resolved.", commentId="*Comment ID")
t("getLabels", "List the labels on a page.", pageId=PID)
t("addLabels", "Add labels to a page so it shows up in label-based lists.", pageId=PID, labels=("array", "*Label names"))
t("getAttachments", "List files attached to a page.", pageId=PID, filename="Name filter")
t("uploadAttachment", "Attach a file to a page, or add a new version of an existing attachment.", pageId=PID,
  filename="*File name", contentBase64="*File data", comment="Version comment")
t("getPageRestrictions", "Show who may view or edit a page.", pageId=PID)
t("setPageRestrictions", "Restrict viewing or editing of a page to given users or groups.", pageId=PID,
  operation=("string", "*Operation", ["read", "update"]), users=("array", "Account IDs"), groups=("array", "Group names"))
t("createBlogPost", "Publish a blog post in a space.", spaceKey="*Space key", title="*Title", body="*Body")
t("getBlogPosts", "List blog posts in a space, newest first.", spaceKey="*Space key", limit=("integer", "Page size"))
t("watchPage", "Start watching a page to be notified of edits and comments.", pageId=PID, accountId="User (default: me)")
t("getTemplates", "List page templates available in a space or globally.", spaceKey="Space key")
t("createPageFromTemplate", "Create a page from a template such as meeting notes, retrospective or decision.",
  templateId="*Template ID", spaceKey="*Space key", title="*Title", parentId="Parent page")
t("getPageAnalytics", "Get the number of views and distinct viewers of a page over a period.", pageId=PID,
  fromDate="Start date")
t("convertToLiveDoc", "Turn a published page into a live doc that is edited collaboratively without drafts.", pageId=PID)
TOOLS += cf.tools
