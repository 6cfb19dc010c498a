"""Box (kebab-case) and Amazon S3 (PascalCase, AWS API style)."""
from _common import Server

bx = Server("box")
t = bx.t
FID = "*Box file ID"
DID = "*Box folder ID ('0' is the root)"
t("search-content", "Search names, descriptions, content and metadata of files and folders in Box.",
  query="*Search terms", type=("string", "Item type", ["file", "folder", "web_link"]), file_extensions=("array", "Extensions"),
  ancestor_folder_ids=("array", "Limit to these folders"), updated_at_range="Date range")
t("list-folder-items", "List the items in a folder with sort and paging.", folder_id=DID, limit=("integer", "Page size"),
  sort=("string", "Sort", ["id", "name", "date", "size"]))
t("get-file-info", "Get file details: size, owner, version, shared link, lock and classification.", file_id=FID)
t("get-folder-info", "Get folder details including path, owner, item count and collaborators.", folder_id=DID)
t("read-file-text", "Extract the text representation of a document, PDF or spreadsheet for reading.", file_id=FID)
t("download-file", "Download a file's bytes.", file_id=FID, version="File version ID")
t("upload-file", "Upload a new file into a folder.", folder_id=DID, name="*File name", content_base64="*Data")
t("upload-new-version", "Upload a new version of an existing file, keeping comments and links.", file_id=FID,
  content_base64="*Data", name="Optional new name")
t("create-folder", "Create a folder inside a parent folder.", parent_id=DID, name="*Folder name")
t("update-file", "Rename a file, change its description, or move it to another folder.", file_id=FID, name="New name",
  description="Description", parent_id="New parent folder")
t("copy-file", "Copy a file into a folder.", file_id=FID, parent_id="*Destination folder", name="Name for the copy")
t("delete-file", "Send a file to the trash.", file_id=FID)
t("delete-folder", "Send a folder, and optionally its contents, to the trash.", folder_id=DID,
  recursive=("boolean", "Delete non-empty folders"))
t("list-trash", "List items in the trash that can be restored.", limit=("integer", "Page size"))
t("restore-from-trash", "Restore a trashed file or folder.", item_id="*Item ID", type=("string", "*Kind", ["file", "folder"]))
t("lock-file", "Lock a file to prevent edits, optionally until a time and preventing downloads.", file_id=FID,
  expires_at="Unlock time", is_download_prevented=("boolean", "Block downloads too"))
t("unlock-file", "Remove the lock on a file.", file_id=FID)
t("create-shared-link", "Create or update a shared link with access level, password, expiry and download permission.",
  item_id="*File or folder ID", access=("string", "Who can open", ["open", "company", "collaborators"]),
  password="Password", unshared_at="Expiry", can_download=("boolean", "Allow downloads"))
t("add-collaboration", "Invite a user or group to a folder or file with a role such as editor or viewer.",
  item_id="*Folder or file ID", accessible_by="*Email or group ID",
  role=("string", "*Role", ["editor", "viewer", "previewer", "uploader", "co-owner", "viewer uploader"]))
t("list-collaborations", "List collaborators on a folder with their roles and status.", folder_id=DID)
t("remove-collaboration", "Remove a collaborator's access.", collaboration_id="*Collaboration ID")
t("create-comment", "Comment on a file, @-mentioning people if needed.", file_id=FID, message="*Comment")
t("list-file-versions", "List earlier versions of a file.", file_id=FID)
t("promote-file-version", "Make an older version the current version of a file.", file_id=FID, version_id="*Version ID")
t("create-task", "Create a review or completion task on a file and assign it to people.", file_id=FID, message="*Instructions",
  action=("string", "Task type", ["review", "complete"]), due_at="Due", assignees=("array", "Assignee emails"))
t("ask-box-ai", "Ask Box AI a question about one or more files and get an answer grounded in their content.",
  file_ids=("array", "*File IDs"), prompt="*Question")
t("extract-structured-data", "Pull fields (e.g. vendor, total, due date) out of a document into structured values with Box AI.",
  file_id=FID, fields=("array", "*Field definitions"))
t("apply-metadata-template", "Attach a metadata template instance with values to a file.", file_id=FID,
  template_key="*Template key", values=("object", "*Field values"))
t("get-classification", "Get the security classification label of a file.", file_id=FID)
t("set-classification", "Apply a security classification label, e.g. Confidential, to a file.", file_id=FID,
  classification="*Label name")
t("create-web-link", "Save a bookmark (web link) to a URL inside a folder.", parent_id=DID, url="*URL", name="Name")
t("get-user", "Get the current user or a managed user's info and storage use.", user_id="User ID ('me' by default)")
t("list-recent-items", "List items the user accessed recently.")
t("create-zip-download", "Bundle several files and folders into one zip download link.", items=("array", "*File and folder IDs"),
  download_file_name="Name of the zip")
TOOLS = bx.tools

s3 = Server("s3")
t = s3.t
B = "*Bucket name"
K = "*Object key"
t("ListBuckets", "List all buckets in the account with their creation dates and regions.")
t("CreateBucket", "Create a bucket in a region, optionally with object lock enabled.", bucket=B, region="AWS region",
  objectLockEnabled=("boolean", "Enable object lock"))
t("DeleteBucket", "Delete an empty bucket.", bucket=B)
t("HeadBucket", "Check that a bucket exists and you have access to it.", bucket=B)
t("GetBucketLocation", "Return the region a bucket lives in.", bucket=B)
t("ListObjectsV2", "List objects under a prefix with size, ETag, storage class and last-modified time.", bucket=B,
  prefix="Key prefix", delimiter="Group keys by this (usually /)", maxKeys=("integer", "Max keys"),
  continuationToken="Next page token")
t("GetObject", "Download an object's body and metadata, optionally a byte range or a version.", bucket=B, key=K,
  range="Byte range, e.g. bytes=0-1023", versionId="Version ID")
t("PutObject", "Upload an object, setting content type, metadata, storage class and encryption.", bucket=B, key=K,
  body="*Content (text or base64)", contentType="MIME type", storageClass=("string", "Storage class",
  ["STANDARD", "STANDARD_IA", "INTELLIGENT_TIERING", "GLACIER", "DEEP_ARCHIVE"]), metadata=("object", "User metadata"))
t("HeadObject", "Get an object's metadata (size, content type, ETag, encryption) without its body.", bucket=B, key=K)
t("DeleteObject", "Delete an object, or one version of it.", bucket=B, key=K, versionId="Version ID")
t("DeleteObjects", "Delete up to 1,000 objects in one request.", bucket=B, keys=("array", "*Keys"))
t("CopyObject", "Copy an object within or between buckets, optionally replacing its metadata.", sourceBucket="*Source bucket",
  sourceKey="*Source key", bucket=B, key=K, metadataDirective=("string", "Metadata", ["COPY", "REPLACE"]))
t("ListObjectVersions", "List every version and delete marker for keys under a prefix.", bucket=B, prefix="Prefix")
t("RestoreObject", "Restore an archived (Glacier or Deep Archive) object for a number of days.", bucket=B, key=K,
  days=("integer", "*Days to keep the restored copy"), tier=("string", "Speed", ["Expedited", "Standard", "Bulk"]))
t("GeneratePresignedUrl", "Create a time-limited URL that lets someone download or upload an object without credentials.",
  bucket=B, key=K, operation=("string", "Operation", ["GetObject", "PutObject"]), expiresIn=("integer", "Seconds"))
t("GetObjectTagging", "Get the tags on an object.", bucket=B, key=K)
t("PutObjectTagging", "Replace the tags on an object.", bucket=B, key=K, tags=("object", "*Tag key/values"))
t("GetBucketPolicy", "Read a bucket's JSON access policy.", bucket=B)
t("PutBucketPolicy", "Attach a JSON access policy to a bucket.", bucket=B, policy="*Policy document JSON")
t("GetPublicAccessBlock", "Show whether a bucket blocks public ACLs and policies.", bucket=B)
t("PutPublicAccessBlock", "Block (or allow) public access to a bucket via ACLs and policies.", bucket=B,
  blockPublicAcls=("boolean", "Block public ACLs"), blockPublicPolicy=("boolean", "Block public policies"))
t("GetBucketVersioning", "Show whether versioning is enabled or suspended on a bucket.", bucket=B)
t("PutBucketVersioning", "Enable or suspend versioning on a bucket.", bucket=B, status=("string", "*Status", ["Enabled", "Suspended"]))
t("PutBucketLifecycleConfiguration", "Set lifecycle rules that transition objects to cheaper storage classes or expire them after N days.",
  bucket=B, rules=("array", "*Lifecycle rules"))
t("GetBucketLifecycleConfiguration", "Read a bucket's lifecycle rules.", bucket=B)
t("PutBucketCors", "Set the CORS rules that let browsers on other origins access a bucket.", bucket=B,
  corsRules=("array", "*CORS rules"))
t("GetBucketEncryption", "Show a bucket's default server-side encryption (SSE-S3 or SSE-KMS).", bucket=B)
t("PutBucketNotification", "Send events (object created, removed) to SNS, SQS or Lambda.", bucket=B,
  configuration=("object", "*Notification configuration"))
t("PutBucketReplication", "Configure replication of new objects to a bucket in another region or account.", bucket=B,
  role="*IAM role ARN", rules=("array", "*Replication rules"))
t("PutBucketWebsite", "Host a static website from a bucket with index and error documents.", bucket=B,
  indexDocument="*Index document", errorDocument="Error document")
t("GetBucketMetrics", "Get a bucket's size in bytes and object count from storage metrics.", bucket=B)
t("SelectObjectContent", "Run a SQL expression over a CSV, JSON or Parquet object and return only matching records.",
  bucket=B, key=K, expression="*SQL, e.g. SELECT * FROM s3object s WHERE s.status = 'failed'",
  inputFormat=("string", "*Format", ["CSV", "JSON", "Parquet"]))
TOOLS += s3.tools
