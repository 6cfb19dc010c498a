"""Salesforce (camelCase) and HubSpot (kebab-case) CRMs."""
from _common import Server

sf = Server("salesforce", titles=True)
t = sf.t
t("soqlQuery", "Run a SOQL query, e.g. SELECT Name, Amount FROM Opportunity WHERE StageName = 'Closed Won'.",
  query="*SOQL query", includeDeleted=("boolean", "Use queryAll to include deleted records"))
t("soslSearch", "Run a SOSL text search across several objects at once, e.g. FIND {Acme} IN ALL FIELDS.", search="*SOSL string")
t("describeObject", "Describe an sObject: its fields, types, picklist values and relationships.", objectName="*API name, e.g. Account")
t("listObjects", "List the standard and custom objects in the org.")
t("getRecord", "Get a record of any object by ID, with chosen fields.", objectName="*Object", recordId="*Record ID",
  fields=("array", "Fields to return"))
t("createRecord", "Create a record of any object from field values.", objectName="*Object", fields=("object", "*Field values"))
t("updateRecord", "Update fields on a record.", objectName="*Object", recordId="*Record ID", fields=("object", "*Field values"))
t("deleteRecord", "Delete a record; it goes to the Recycle Bin.", objectName="*Object", recordId="*Record ID")
t("upsertRecord", "Insert or update a record matched on an external ID field.", objectName="*Object",
  externalIdField="*External ID field", externalId="*Value", fields=("object", "*Field values"))
t("createLead", "Create a lead with name, company, email, source and status.", lastName="*Last name", company="*Company",
  firstName="First name", email="Email", leadSource="Source, e.g. Web or Trade Show", status="Lead status")
t("convertLead", "Convert a qualified lead into an account, contact and optionally an opportunity.", leadId="*Lead ID",
  convertedStatus="*Converted status", createOpportunity=("boolean", "Also create an opportunity"),
  opportunityName="Opportunity name", accountId="Merge into existing account")
t("createOpportunity", "Create an opportunity on an account with amount, stage and close date.", name="*Name",
  accountId="*Account", stageName="*Stage", closeDate="*Close date", amount=("number", "Amount"))
t("updateOpportunityStage", "Move an opportunity to a new stage, e.g. Negotiation or Closed Won, with probability.",
  opportunityId="*Opportunity ID", stageName="*Stage", probability=("number", "Probability %"))
t("addOpportunityProducts", "Add products from a price book to an opportunity with quantities and prices.",
  opportunityId="*Opportunity ID", lineItems=("array", "*PricebookEntry, quantity, price"))
t("createTask", "Log a task or call for a record owner, e.g. 'Follow up on proposal', with a due date.",
  subject="*Subject", whoId="Contact or lead", whatId="Account or opportunity", activityDate="Due date",
  ownerId="Owner", status="Status")
t("createEvent", "Create a calendar event (meeting) related to a contact and account.", subject="*Subject",
  startDateTime="*Start", endDateTime="*End", whoId="Contact", whatId="Related record")
t("logEmail", "Log an email that was sent to a contact as an activity on the record.", whoId="*Contact or lead",
  subject="*Subject", body="Body", whatId="Related record")
t("getRecordActivities", "List open and past activities (tasks, events, calls, emails) on a record.", recordId="*Record ID")
t("createCase", "Create a support case for an account or contact with priority and origin.", subject="*Subject",
  accountId="Account", contactId="Contact", priority=("string", "Priority", ["Low", "Medium", "High"]), origin="Origin")
t("addCaseComment", "Add a comment to a case, public or internal.", caseId="*Case ID", commentBody="*Comment",
  isPublished=("boolean", "Visible to the customer"))
t("changeRecordOwner", "Transfer ownership of a record to another user or queue.", recordId="*Record ID", ownerId="*New owner")
t("mergeRecords", "Merge up to three duplicate accounts, contacts or leads into a master record.", objectName="*Object",
  masterRecordId="*Record to keep", duplicateIds=("array", "*Records to merge in"))
t("findDuplicates", "Run duplicate rules to find records similar to given field values.", objectName="*Object",
  fields=("object", "*Field values to match"))
t("runReport", "Run a saved report and return its rows and aggregates, with optional filters.", reportId="*Report ID",
  filters=("array", "Runtime filters"))
t("listReports", "List saved reports, optionally filtered by name or folder.", query="Name filter")
t("getDashboard", "Get a dashboard's components and their latest values.", dashboardId="*Dashboard ID")
t("addCampaignMembers", "Add leads or contacts to a marketing campaign with a member status.", campaignId="*Campaign ID",
  memberIds=("array", "*Lead or contact IDs"), status="Member status")
t("submitForApproval", "Submit a record, such as a discounted quote, into an approval process.", recordId="*Record ID",
  comments="Comments")
t("listApprovals", "List approval requests waiting on the current user.")
t("createQuote", "Create a quote for an opportunity with its line items.", opportunityId="*Opportunity ID", name="*Name",
  expirationDate="Expiry")
t("bulkLoad", "Insert, update or delete many records with a Bulk API 2.0 job from CSV.", objectName="*Object",
  operation=("string", "*Operation", ["insert", "update", "upsert", "delete"]), csv="*CSV data")
t("getUserInfo", "Return the current user's ID, name, profile and org.")
t("runApex", "Execute anonymous Apex code and return the debug log.", code="*Apex code")
t("getLimits", "Show org limits and remaining usage (API calls, storage).")
TOOLS = sf.tools

hs = Server("hubspot")
t = hs.t
OT = ("string", "*CRM object type", ["contacts", "companies", "deals", "tickets", "products", "line_items"])
t("search-objects", "Search CRM objects with filters, e.g. deals in stage closedwon with amount over 10,000, sorted.",
  objectType=OT, filterGroups=("array", "Filter groups"), query="Free-text query", sorts=("array", "Sorts"),
  properties=("array", "Properties to return"))
t("list-objects", "List CRM records of a type, page by page.", objectType=OT, limit=("integer", "Page size"), after="Cursor")
t("get-object", "Get one CRM record by ID with chosen properties and associations.", objectType=OT, objectId="*Record ID",
  associations=("array", "Associated types to include"))
t("batch-create-objects", "Create up to 100 CRM records of one type in a single call.", objectType=OT,
  inputs=("array", "*Objects with properties"))
t("batch-update-objects", "Update properties on up to 100 CRM records.", objectType=OT, inputs=("array", "*IDs and properties"))
t("archive-object", "Archive (soft-delete) a CRM record.", objectType=OT, objectId="*Record ID")
t("merge-objects", "Merge two contacts or companies, keeping the primary one.", objectType=OT, primaryObjectId="*Keep",
  objectIdToMerge="*Merge in")
t("create-association", "Associate two records, e.g. a contact with a company or a deal with a contact.",
  fromObjectType="*From type", fromObjectId="*From ID", toObjectType="*To type", toObjectId="*To ID",
  associationType="Label")
t("list-associations", "List records associated with a record, e.g. all contacts on a deal.", objectType=OT,
  objectId="*Record ID", toObjectType="*Associated type")
t("get-properties", "List the properties defined for an object type, with types and options.", objectType=OT)
t("create-property", "Define a custom property on an object type.", objectType=OT, name="*Internal name", label="*Label",
  type=("string", "*Type", ["string", "number", "date", "enumeration", "bool"]), options=("array", "Options for enumerations"))
t("list-pipelines", "List deal or ticket pipelines and their stages.", objectType=("string", "*Type", ["deals", "tickets"]))
t("create-engagement", "Log a note, call, meeting or email on a contact, company or deal timeline.",
  type=("string", "*Type", ["NOTE", "CALL", "MEETING", "EMAIL", "TASK"]), body="*Content", associations=("object", "*Records"),
  timestamp="When it happened")
t("list-owners", "List CRM owners (users) who can be assigned records.", email="Email filter")
t("list-lists", "List contact lists (segments), static or active.", query="Name filter")
t("add-to-list", "Add contacts to a static list.", listId="*List ID", recordIds=("array", "*Contact IDs"))
t("remove-from-list", "Remove contacts from a static list.", listId="*List ID", recordIds=("array", "*Contact IDs"))
t("create-list", "Create a static or active contact list from filters.", name="*List name",
  processingType=("string", "*Type", ["MANUAL", "DYNAMIC"]), filterBranch=("object", "Filters for active lists"))
t("enroll-in-sequence", "Enroll a contact in a sales sequence of timed emails and tasks.", sequenceId="*Sequence ID",
  contactId="*Contact ID", senderEmail="*Sender")
t("list-sequences", "List sales sequences available to the user.")
t("list-marketing-emails", "List marketing emails with state and send stats (opens, clicks).", state="Draft or published")
t("get-email-stats", "Get open, click, bounce and unsubscribe rates for a marketing email.", emailId="*Email ID")
t("send-transactional-email", "Send a single transactional email using a template to a contact.", emailId="*Template email ID",
  to="*Recipient", customProperties=("object", "Template variables"))
t("list-forms", "List forms with their fields and submission counts.")
t("get-form-submissions", "Get submissions of a form with field values and page URL.", formId="*Form ID",
  limit=("integer", "Max submissions"))
t("create-task", "Create a CRM task for a sales rep with a due date and priority.", subject="*Subject", ownerId="Owner",
  dueDate="Due", priority=("string", "Priority", ["LOW", "MEDIUM", "HIGH"]), associations=("object", "Records"))
t("list-workflows", "List automation workflows and whether they are on.", type="Workflow type")
t("list-meetings-links", "List scheduling (meetings) links reps share for booking calls.")
t("create-feedback-survey", "Create an NPS or CSAT feedback survey.", type=("string", "*Type", ["NPS", "CSAT", "CES"]), name="*Name")
t("get-analytics-report", "Get traffic analytics (sessions, sources, conversions) for a date range.", startDate="*Start",
  endDate="*End", breakdownBy=("string", "Breakdown", ["sources", "pages", "geolocation"]))
t("get-user-details", "Show the connected user, account ID and available scopes.")
TOOLS += hs.tools
