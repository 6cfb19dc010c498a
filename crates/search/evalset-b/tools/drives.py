"""Google Drive (camelCase) and Dropbox (snake_case, API-style names)."""
from _common import Server

gd = Server("gdrive", titles=True)
t = gd.t
F = "*Drive file ID"
t("searchFiles", "Search Drive with a query on name, full text, MIME type, owner or modified time "
  "(e.g. fullText contains 'budget' and mimeType = 'application/vnd.google-apps.spreadsheet').",
  q="*Drive query string", pageSize=("integer", "Max results"), corpora=("string", "Where", ["user", "drive", "allDrives"]))
t("listFolder", "List the files and sub-folders inside a folder.", folderId="*Folder ID ('root' for My Drive)",
  orderBy="Sort, e.g. modifiedTime desc")
t("getFileMetadata", "Get a file's name, type, size, owners, parents, sharing and modified time.", fileId=F)
t("readFile", "Read a file's content; Google Docs come back as Markdown, Sheets as CSV, Slides as text.", fileId=F)
t("downloadFile", "Download a binary file's bytes as base64.", fileId=F)
t("exportFile", "Export a Google Doc, Sheet or Slides file to another format such as PDF, DOCX or XLSX.", fileId=F,
  mimeType="*Target MIME type")
t("createFile", "Create a file with text content, or an empty Google Doc, Sheet or Slides file, in a folder.",
  name="*File name", mimeType="MIME type", content="Text content", parentId="Folder ID")
t("uploadFile", "Upload a local or base64 file to Drive, converting to a Google format if asked.", name="*File name",
  contentBase64="*Data", parentId="Folder ID", convert=("boolean", "Convert to Google format"))
t("updateFileContent", "Replace the content of an existing file, keeping its ID and sharing.", fileId=F, content="*New content")
t("renameFile", "Change a file's name.", fileId=F, name="*New name")
t("createFolder", "Make a new folder, optionally inside another folder.", name="*Folder name", parentId="Parent folder ID")
t("moveFile", "Move a file into a different folder.", fileId=F, newParentId="*Destination folder", removeFromParents=("boolean", "Remove from current folders"))
t("copyFile", "Make a copy of a file, optionally with a new name and folder.", fileId=F, name="Name of the copy",
  parentId="Folder for the copy")
t("trashFile", "Move a file or folder to the trash.", fileId=F)
t("restoreFile", "Restore a file from the trash.", fileId=F)
t("emptyTrash", "Permanently delete everything in the user's Drive trash.")
t("shareFile", "Share a file with a person, group, domain or anyone with the link, as viewer, commenter or editor.",
  fileId=F, emailAddress="Grantee email", role=("string", "*Role", ["reader", "commenter", "writer", "owner"]),
  type=("string", "*Grantee type", ["user", "group", "domain", "anyone"]), notify=("boolean", "Send an email"),
  message="Note in the email")
t("listPermissions", "List who a file is shared with and their roles.", fileId=F)
t("removePermission", "Stop sharing a file with someone by deleting their permission.", fileId=F, permissionId="*Permission ID")
t("transferOwnership", "Make another user the owner of a file.", fileId=F, newOwnerEmail="*New owner")
t("listRevisions", "List a file's saved versions with modifier and time.", fileId=F)
t("addComment", "Comment on a file, optionally anchored to quoted text.", fileId=F, content="*Comment", quotedText="Anchor text")
t("listComments", "List the comments and replies on a file.", fileId=F, includeDeleted=("boolean", "Include deleted"))
t("listSharedDrives", "List the shared drives you belong to.")
t("createSharedDrive", "Create a shared drive owned by the organization.", name="*Name")
t("getStorageQuota", "Show how much Drive storage is used and the account's limit.")
t("listRecentFiles", "List files you opened or edited most recently.", pageSize=("integer", "Max files"))
t("listSharedWithMe", "List files others have shared with you.", pageSize=("integer", "Max files"))
t("readSheetRange", "Read cell values from a range of a Google Sheet in A1 notation.", spreadsheetId="*Spreadsheet ID",
  range="*A1 range, e.g. Sheet1!A1:D20")
t("writeSheetRange", "Write values into a range of a Google Sheet.", spreadsheetId="*Spreadsheet ID", range="*A1 range",
  values=("array", "*Rows of values"))
t("appendSheetRows", "Append rows after the last row of a table in a Sheet.", spreadsheetId="*Spreadsheet ID",
  range="*Table range", values=("array", "*Rows"))
t("insertDocText", "Insert text into a Google Doc at an index or at the end.", documentId="*Document ID", text="*Text",
  index=("integer", "Insert position"))
t("replaceDocText", "Find and replace all occurrences of text in a Google Doc.", documentId="*Document ID",
  find="*Text to find", replace="*Replacement", matchCase=("boolean", "Case sensitive"))
t("addFileLabel", "Apply a Drive label (e.g. Confidential) with field values to a file.", fileId=F, labelId="*Label ID",
  fields=("object", "Label field values"))
TOOLS = gd.tools

db = Server("dropbox")
t = db.t
P = "*Path in Dropbox, e.g. /Reports/q3.pdf"
t("list_folder", "List the contents of a folder, optionally recursively, with sizes and modified dates.",
  path="*Folder path ('' for root)", recursive=("boolean", "Include sub-folders"), limit=("integer", "Page size"))
t("list_folder_continue", "Fetch the next page of a folder listing using a cursor.", cursor="*Cursor")
t("get_metadata", "Get metadata for a file or folder: size, revision, content hash, modified time.", path=P)
t("download", "Download a file's content.", path=P, rev="Specific revision")
t("upload", "Upload a file up to 150 MB, adding or overwriting.", path=P, content_base64="*Data",
  mode=("string", "Write mode", ["add", "overwrite", "update"]), autorename=("boolean", "Rename on conflict"))
t("upload_session_start", "Begin a chunked upload for files larger than 150 MB.", content_base64="*First chunk")
t("upload_session_finish", "Send the last chunk and commit a chunked upload to a path.", session_id="*Session ID",
  offset=("integer", "*Bytes already sent"), path=P, content_base64="Final chunk")
t("create_folder_v2", "Create a folder at a path.", path=P, autorename=("boolean", "Rename if taken"))
t("delete_v2", "Delete a file or folder (recoverable for the retention period).", path=P)
t("permanently_delete", "Permanently delete a file or folder so it cannot be restored (team admins only).", path=P)
t("move_v2", "Move or rename a file or folder from one path to another.", from_path="*Current path", to_path="*New path",
  autorename=("boolean", "Rename on conflict"))
t("copy_v2", "Copy a file or folder to a new path.", from_path="*Source", to_path="*Destination")
t("search_v2", "Search file and folder names, and file contents on supported plans.", query="*Query", path="Scope folder",
  file_extensions=("array", "Extensions filter"), max_results=("integer", "Max results"))
t("list_revisions", "List a file's previous revisions.", path=P, limit=("integer", "Max revisions"))
t("restore", "Restore a file to an earlier revision.", path=P, rev="*Revision ID")
t("get_thumbnail", "Get a thumbnail image for a photo or document.", path=P, size=("string", "Size", ["w64h64", "w256h256", "w1024h768"]))
t("get_preview", "Get a PDF or HTML preview of a document.", path=P)
t("get_temporary_link", "Get a direct download link that expires after four hours.", path=P)
t("create_shared_link_with_settings", "Create a shared link for a file or folder with visibility, password and expiry.",
  path=P, requested_visibility=("string", "Visibility", ["public", "team_only", "password"]), link_password="Password",
  expires="Expiry time")
t("list_shared_links", "List existing shared links, for one path or all.", path="Path filter")
t("revoke_shared_link", "Disable a shared link.", url="*Shared link URL")
t("share_folder", "Turn a folder into a shared folder that members can be added to.", path=P,
  member_policy=("string", "Who can join", ["team", "anyone"]))
t("add_folder_member", "Invite people to a shared folder as editors or viewers.", shared_folder_id="*Shared folder ID",
  members=("array", "*Emails"), access_level=("string", "Access", ["editor", "viewer"]), custom_message="Message")
t("list_folder_members", "List the members of a shared folder and their access.", shared_folder_id="*Shared folder ID")
t("remove_folder_member", "Remove someone from a shared folder.", shared_folder_id="*Shared folder ID", member="*Email",
  leave_a_copy=("boolean", "Let them keep a copy"))
t("unshare_folder", "Stop sharing a folder; members lose access.", shared_folder_id="*Shared folder ID",
  leave_a_copy=("boolean", "Members keep copies"))
t("create_file_request", "Create a file request: a link where anyone can upload files into a folder, with a deadline.",
  title="*Request title", destination="*Folder that receives uploads", deadline="Deadline")
t("save_url", "Save a file from a public URL directly into Dropbox.", path=P, url="*Source URL")
t("get_space_usage", "Get how much space is used and allocated for the account.")
t("get_current_account", "Get the signed-in account's name, email and plan.")
t("lock_file_batch", "Lock files so others cannot edit them until unlocked.", paths=("array", "*Paths"))
t("list_deleted", "List files deleted from a folder that can still be restored.", path="*Folder path")
TOOLS += db.tools
