"""Zendesk (snake_case) and Intercom (kebab-case): customer support desks."""
from _common import Server

zd = Server("zendesk", titles=True)
t = zd.t
TK = ("integer", "*Ticket ID")
t("create_ticket", "Create a support ticket on behalf of a requester with subject, first comment, priority and tags.",
  subject="*Subject", comment="*First comment body", requester_email="Requester email",
  priority=("string", "Priority", ["low", "normal", "high", "urgent"]), type=("string", "Type", ["problem", "incident", "question", "task"]),
  tags=("array", "Tags"), group_id=("integer", "Group"))
t("get_ticket", "Get a ticket's subject, status, requester, assignee, tags and custom fields.", ticket_id=TK)
t("update_ticket", "Change a ticket's status, priority, assignee, group, tags or custom fields.", ticket_id=TK,
  status=("string", "Status", ["new", "open", "pending", "hold", "solved", "closed"]), priority="Priority",
  assignee_id=("integer", "Agent"), tags=("array", "Replace tags"))
t("add_ticket_comment", "Add a public reply (emailed to the requester) or an internal note to a ticket.", ticket_id=TK,
  body="*Comment", public=("boolean", "Public reply (false = internal note)"))
t("list_ticket_comments", "List the conversation on a ticket, including internal notes.", ticket_id=TK)
t("search_tickets", "Search tickets with Zendesk search syntax, e.g. 'status:open priority:urgent tags:refund'.",
  query="*Search query", sort_by="Sort field")
t("list_tickets", "List recent tickets, or those in a view.", view_id=("integer", "View ID"), page_size=("integer", "Page size"))
t("merge_tickets", "Merge one or more tickets into a target ticket, closing the sources.", target_ticket_id=TK,
  source_ticket_ids=("array", "*Tickets to merge in"), target_comment="Comment on the target")
t("delete_ticket", "Delete a ticket (kept in deleted tickets for 30 days).", ticket_id=TK)
t("mark_ticket_as_spam", "Mark a ticket as spam and suspend its requester.", ticket_id=TK)
t("apply_macro", "Preview or apply a macro (canned response with field changes) to a ticket.", ticket_id=TK,
  macro_id=("integer", "*Macro ID"))
t("list_macros", "List active macros, e.g. 'Refund approved' or 'Request more info'.", query="Title filter")
t("list_views", "List ticket views (queues) available to the agent.")
t("count_view_tickets", "Count the tickets currently in a view.", view_id=("integer", "*View ID"))
t("get_ticket_metrics", "Get a ticket's reply time, resolution time, reopens and wait times.", ticket_id=TK)
t("get_satisfaction_ratings", "List CSAT ratings (good/bad) and comments from customers.", score="good or bad",
  start_time="Since")
t("create_user", "Create an end user (customer) or agent with name, email and organization.", name="*Name", email="Email",
  role=("string", "Role", ["end-user", "agent", "admin"]), organization_id=("integer", "Organization"))
t("search_users", "Find users by name, email or phone.", query="*Query")
t("get_user_tickets", "List tickets requested by a user.", user_id=("integer", "*User ID"))
t("create_organization", "Create a customer organization with domains, tags and notes.", name="*Name",
  domain_names=("array", "Email domains"), notes="Notes")
t("list_groups", "List agent groups such as Billing or Tier 2.")
t("search_help_center", "Search Help Center articles by text and locale.", query="*Query", locale="Locale")
t("create_article", "Write a Help Center article in a section, as a draft or published.", section_id=("integer", "*Section"),
  title="*Title", body="*HTML body", draft=("boolean", "Save as draft"))
t("update_article", "Edit a Help Center article's title or body.", article_id=("integer", "*Article ID"), title="Title",
  body="Body")
t("create_trigger", "Create a business rule that acts on tickets when conditions match on create or update.",
  title="*Title", conditions=("object", "*all/any conditions"), actions=("array", "*Actions"))
t("list_sla_policies", "List SLA policies with first-reply and resolution targets.")
t("create_side_conversation", "Start a side conversation by email or Slack from a ticket, e.g. to ask engineering.",
  ticket_id=TK, to=("array", "*Emails or channel"), subject="Subject", body="*Message")
t("get_incremental_ticket_events", "Export ticket changes since a time for syncing to a warehouse.",
  start_time=("integer", "*Unix time"))
t("suspend_user", "Suspend a user so they cannot sign in or submit tickets.", user_id=("integer", "*User ID"))
t("upload_attachment", "Upload a file to attach to a ticket comment; returns a token.", filename="*Name",
  content_base64="*Data")
TOOLS = zd.tools

ic = Server("intercom")
t = ic.t
CV = "*Conversation ID"
CT = "*Contact ID"
t("search-conversations", "Search conversations by state, assignee, tag, contact or text, e.g. open and unassigned.",
  query=("object", "*Search query object"), per_page=("integer", "Page size"))
t("get-conversation", "Get a conversation with all its parts: messages, notes, assignments and state changes.",
  conversation_id=CV)
t("reply-to-conversation", "Reply to a conversation as an admin, or leave an internal note.", conversation_id=CV,
  body="*Message", message_type=("string", "Type", ["comment", "note", "quick_reply"]), admin_id="*Replying admin")
t("assign-conversation", "Assign a conversation to a teammate or team inbox.", conversation_id=CV, assignee_id="*Admin or team",
  admin_id="*Admin making the change")
t("close-conversation", "Close a conversation, optionally with a final message.", conversation_id=CV, admin_id="*Admin",
  body="Closing message")
t("snooze-conversation", "Snooze a conversation until a time.", conversation_id=CV, snoozed_until=("integer", "*Unix time"),
  admin_id="*Admin")
t("reopen-conversation", "Reopen a closed or snoozed conversation.", conversation_id=CV, admin_id="*Admin")
t("tag-conversation", "Apply a tag to a conversation.", conversation_id=CV, tag_id="*Tag ID", admin_id="*Admin")
t("set-conversation-priority", "Mark a conversation as priority or not.", conversation_id=CV,
  priority=("string", "*Priority", ["priority", "not_priority"]))
t("convert-conversation-to-ticket", "Turn a conversation into a ticket of a given type for tracking.", conversation_id=CV,
  ticket_type_id="*Ticket type")
t("create-contact", "Create a lead or user contact with email, name and custom attributes.", email="Email",
  name="Name", role=("string", "Role", ["user", "lead"]), custom_attributes=("object", "Attributes"))
t("get-contact", "Get a contact's profile, attributes, tags, companies and last seen time.", contact_id=CT)
t("update-contact", "Update a contact's name, email, phone or custom attributes.", contact_id=CT, name="Name", email="Email",
  custom_attributes=("object", "Attributes"))
t("search-contacts", "Search contacts by attributes such as email, signed-up date or plan.", query=("object", "*Query"))
t("merge-contacts", "Merge a lead into a user contact.", from_="*Lead ID", into="*User ID")
t("archive-contact", "Archive a contact.", contact_id=CT)
t("delete-contact", "Permanently delete a contact and its data.", contact_id=CT)
t("add-note-to-contact", "Add an internal note to a contact's profile.", contact_id=CT, body="*Note", admin_id="Author")
t("tag-contact", "Tag a contact.", contact_id=CT, tag_id="*Tag ID")
t("list-tags", "Return every tag defined in Intercom, as used on conversations, contacts and companies.")
t("create-company", "Create or update a company with plan, size, spend and custom attributes.", company_id="*External ID",
  name="Name", plan="Plan", monthly_spend=("number", "Spend"))
t("attach-contact-to-company", "Link a contact to a company.", contact_id=CT, company_id="*Company ID")
t("send-message", "Send an outbound in-app message or email to a contact from an admin.",
  message_type=("string", "*Channel", ["inapp", "email"]), subject="Email subject", body="*Body", from_admin_id="*Sender",
  to_contact_id="*Recipient")
t("create-ticket", "Create an Intercom ticket for a contact with a ticket type and attributes.", ticket_type_id="*Type",
  contact_id=CT, title="*Title", description="Description")
t("list-admins", "List teammates (admins) and whether they are away.")
t("set-admin-away", "Mark a teammate away or back, optionally reassigning their new conversations.", admin_id="*Admin",
  away_mode_enabled=("boolean", "*Away"), away_mode_reassign=("boolean", "Reassign replies"))
t("list-help-center-articles", "List help center articles with state and author.")
t("create-article", "Write a help center article.", title="*Title", body="*HTML body", author_id="*Author",
  state=("string", "State", ["draft", "published"]))
t("search-articles", "Search help center articles by phrase.", phrase="*Phrase")
t("track-event", "Submit a custom event for a contact (e.g. upgraded-plan) with metadata.", event_name="*Event name",
  user_id="External user ID", email="Email", metadata=("object", "Metadata"))
t("list-segments", "List contact segments with counts.")
TOOLS += ic.tools
