#!/usr/bin/env python3
"""Writes tools.json: productivity and communication tool definitions (original text)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = []


def T(server, name, desc, props=None, required=()):
    schema = {"type": "object", "properties": {}}
    for key, spec in (props or {}).items():
        typ, d = spec[0], spec[1]
        p = {"type": typ, "description": d}
        if typ == "array":
            p["items"] = {"type": spec[2] if len(spec) > 2 else "string"}
        elif len(spec) > 2:
            p["enum"] = spec[2]
        schema["properties"][key] = p
    if required:
        schema["required"] = list(required)
    TOOLS.append({"server": server, "name": name, "description": desc, "inputSchema": schema})


S, I, B, A = "string", "integer", "boolean", "array"

# ---------------------------------------------------------------- gmail
g = "gmail"
T(g, "send_email", "Send an email from the authenticated Gmail account. Supports cc, bcc and file attachments.",
  {"to": (A, "Recipient addresses"), "subject": (S, "Subject line"), "body": (S, "Plain text or HTML body"),
   "cc": (A, "Carbon-copy addresses"), "bcc": (A, "Blind-copy addresses"),
   "attachments": (A, "Local file paths to attach")}, ["to", "subject", "body"])
T(g, "reply_to_email", "Reply to a message, keeping it in the same conversation thread. Set reply_all to include everyone on the original.",
  {"message_id": (S, "ID of the message being answered"), "body": (S, "Reply text"),
   "reply_all": (B, "Answer all recipients instead of only the sender")}, ["message_id", "body"])
T(g, "forward_email", "Forward an existing message (with its attachments) to new recipients, optionally adding a note on top.",
  {"message_id": (S, "Message to pass along"), "to": (A, "Addresses to forward to"), "note": (S, "Text placed above the forwarded content")},
  ["message_id", "to"])
T(g, "search_emails", "Search the mailbox using Gmail query syntax (from:, subject:, has:attachment, before:, after:, label:). Returns message ids and snippets.",
  {"query": (S, "Gmail search expression, e.g. 'from:ana@x.com has:attachment'"), "max_results": (I, "Upper bound on hits, default 20")},
  ["query"])
T(g, "list_recent_emails", "List the newest messages in the inbox.",
  {"max_results": (I, "How many messages, default 10"), "unread_only": (B, "Only unread mail")})
T(g, "get_email", "Fetch one message in full: headers, body text and the list of attachments.",
  {"message_id": (S, "Gmail message ID")}, ["message_id"])
T(g, "create_draft", "Save a message as a draft without sending it, so a person can review it first.",
  {"to": (A, "Recipients"), "subject": (S, "Subject"), "body": (S, "Body text"), "reply_to_id": (S, "Optional message this draft answers")},
  ["body"])
T(g, "modify_labels", "Add or remove labels on a message. Use the system labels STARRED or IMPORTANT to star or mark a message important.",
  {"message_id": (S, "Target message"), "add_labels": (A, "Label names to apply"), "remove_labels": (A, "Label names to strip")},
  ["message_id"])
T(g, "archive_email", "Remove a message from the inbox without deleting it (it stays under All Mail).",
  {"message_id": (S, "Message to archive")}, ["message_id"])
T(g, "trash_email", "Move a message to Trash; Gmail purges it after 30 days.",
  {"message_id": (S, "Message to trash")}, ["message_id"])
T(g, "mark_as_read", "Mark one or more messages read, or unread when unread=true.",
  {"message_ids": (A, "Messages to update"), "unread": (B, "Set true to flag them unread instead")}, ["message_ids"])
T(g, "create_filter", "Create a mail filter rule. Incoming messages matching the criteria (sender, subject words, size) automatically get the chosen action: label, archive, forward, delete or mark read.",
  {"from": (S, "Sender address or domain to match"), "subject_contains": (S, "Words in the subject"),
   "action": (S, "What to do with matches", ["label", "archive", "forward", "delete", "mark_read"]),
   "action_value": (S, "Label name or forwarding address when needed")}, ["action"])
T(g, "download_attachment", "Save an attachment from a message to local disk.",
  {"message_id": (S, "Message that carries the file"), "attachment_id": (S, "Attachment identifier from get_email"),
   "save_to": (S, "Destination directory")}, ["message_id", "attachment_id"])

# ---------------------------------------------------------------- outlook
o = "outlook"
T(o, "sendMail", "Sends a new email through Microsoft 365 / Outlook.",
  {"toRecipients": (A, "Email addresses"), "subject": (S, "Subject"), "body": (S, "Message content (HTML allowed)"),
   "importance": (S, "Message importance", ["low", "normal", "high"])}, ["toRecipients", "subject", "body"])
T(o, "replyToMessage", "Reply to an Outlook message. replyAll answers every recipient.",
  {"messageId": (S, "Message id"), "comment": (S, "Text of the reply"), "replyAll": (B, "Include all original recipients")},
  ["messageId", "comment"])
T(o, "listMessages", "Lists messages in a mail folder (Inbox by default), newest first. Supports an OData $filter.",
  {"folder": (S, "Folder name, e.g. Inbox, SentItems, Archive"), "top": (I, "Page size"), "filter": (S, "OData filter such as isRead eq false")})
T(o, "searchMessages", "Full-text search across all Outlook mail folders (sender, subject, body).",
  {"query": (S, "KQL search string"), "top": (I, "Maximum results")}, ["query"])
T(o, "getMessage", "Get a single Outlook message including body and attachment names.",
  {"messageId": (S, "Message id")}, ["messageId"])
T(o, "moveMessage", "Move a message to another mail folder such as Archive, Junk Email or a custom folder.",
  {"messageId": (S, "Message id"), "destinationFolder": (S, "Folder name or id")}, ["messageId", "destinationFolder"])
T(o, "deleteMessage", "Delete a message (goes to Deleted Items).",
  {"messageId": (S, "Message id")}, ["messageId"])
T(o, "flagMessage", "Set a follow-up flag on a message, with an optional due date, or clear it.",
  {"messageId": (S, "Message id"), "flagStatus": (S, "Flag state", ["flagged", "complete", "notFlagged"]),
   "dueDateTime": (S, "ISO date for the follow-up")}, ["messageId", "flagStatus"])
T(o, "setAutomaticReplies", "Configure out-of-office automatic replies for the mailbox, optionally for a scheduled window, with separate messages for internal and external senders.",
  {"status": (S, "State", ["disabled", "alwaysEnabled", "scheduled"]), "internalReplyMessage": (S, "Reply sent to colleagues"),
   "externalReplyMessage": (S, "Reply sent to outside senders"), "scheduledStartDateTime": (S, "ISO start"),
   "scheduledEndDateTime": (S, "ISO end")}, ["status"])
T(o, "createEvent", "Create an event on the user's Outlook calendar and send invitations to attendees.",
  {"subject": (S, "Event title"), "start": (S, "ISO start date-time"), "end": (S, "ISO end date-time"),
   "attendees": (A, "Invitee email addresses"), "location": (S, "Room or address"), "body": (S, "Agenda / notes")},
  ["subject", "start", "end"])
T(o, "listEvents", "List Outlook calendar events between two date-times (calendar view, recurring events expanded).",
  {"startDateTime": (S, "Window start"), "endDateTime": (S, "Window end")}, ["startDateTime", "endDateTime"])
T(o, "updateEvent", "Change an existing Outlook event: time, title, location, attendees or body. Attendees receive an update.",
  {"eventId": (S, "Event id"), "start": (S, "New start"), "end": (S, "New end"), "subject": (S, "New title"),
   "location": (S, "New location"), "attendees": (A, "Replacement attendee list")}, ["eventId"])
T(o, "cancelEvent", "Cancel a meeting you organize; attendees get a cancellation notice with your optional comment.",
  {"eventId": (S, "Event id"), "comment": (S, "Message to attendees")}, ["eventId"])
T(o, "respondToEvent", "Accept, tentatively accept or decline a meeting invitation.",
  {"eventId": (S, "Event id"), "response": (S, "Answer", ["accept", "tentativelyAccept", "decline"]),
   "comment": (S, "Optional note to the organizer"), "sendResponse": (B, "Notify the organizer")}, ["eventId", "response"])
T(o, "findMeetingTimes", "Suggest time slots when all the given attendees (and optionally a room) are available, based on their free/busy schedules.",
  {"attendees": (A, "Attendee addresses"), "durationMinutes": (I, "Meeting length"),
   "windowStart": (S, "Earliest acceptable time"), "windowEnd": (S, "Latest acceptable time")}, ["attendees", "durationMinutes"])

# ---------------------------------------------------------------- google calendar
c = "gcal"
T(c, "create_event", "Create an event on a Google Calendar. Supports attendees, description, location and RRULE recurrence.",
  {"calendar_id": (S, "Calendar to write to; 'primary' by default"), "summary": (S, "Event title"),
   "start": (S, "RFC3339 start"), "end": (S, "RFC3339 end"), "attendees": (A, "Guest emails"),
   "location": (S, "Place"), "description": (S, "Details"), "recurrence": (A, "RRULE lines, e.g. RRULE:FREQ=WEEKLY;BYDAY=MO")},
  ["summary", "start", "end"])
T(c, "quick_add", "Create an event from a single line of natural language, e.g. 'Dentist Thursday 3pm'.",
  {"text": (S, "Free-text description of the event"), "calendar_id": (S, "Target calendar")}, ["text"])
T(c, "get_event", "Return one event by id with guests, their RSVP state, conferencing and reminders.",
  {"event_id": (S, "Event id"), "calendar_id": (S, "Calendar id")}, ["event_id"])
T(c, "list_events", "List events in a time window, ordered by start time.",
  {"calendar_id": (S, "Calendar id"), "time_min": (S, "Lower bound (RFC3339)"), "time_max": (S, "Upper bound (RFC3339)"),
   "max_results": (I, "Limit")})
T(c, "search_events", "Free-text search over event titles, descriptions, locations and guests.",
  {"q": (S, "Search words"), "calendar_id": (S, "Calendar id")}, ["q"])
T(c, "update_event", "Patch fields of an existing event (time, title, guests, location, description).",
  {"event_id": (S, "Event id"), "start": (S, "New start"), "end": (S, "New end"), "summary": (S, "New title"),
   "add_attendees": (A, "Guests to add"), "location": (S, "New place")}, ["event_id"])
T(c, "delete_event", "Remove an event from the calendar. notify=true emails guests a cancellation.",
  {"event_id": (S, "Event id"), "notify": (B, "Email guests")}, ["event_id"])
T(c, "rsvp_event", "Answer an invitation on behalf of the user: yes, no or maybe.",
  {"event_id": (S, "Event id"), "status": (S, "Reply", ["accepted", "declined", "tentative"])}, ["event_id", "status"])
T(c, "free_busy_query", "Return busy intervals for a set of calendars or people over a time range, to find when everyone is open.",
  {"emails": (A, "Calendars or people to check"), "time_min": (S, "Range start"), "time_max": (S, "Range end")},
  ["emails", "time_min", "time_max"])
T(c, "list_calendars", "List the calendars the user can see (own, shared, subscribed) with ids and colors.")

# ---------------------------------------------------------------- slack
s = "slack"
T(s, "slack_post_message", "Post a message to a Slack channel. Pass thread_ts to answer inside an existing thread instead.",
  {"channel": (S, "Channel name or id"), "text": (S, "Message text (mrkdwn)"), "thread_ts": (S, "Parent message timestamp for threaded replies")},
  ["channel", "text"])
T(s, "slack_send_dm", "Send a direct message to one user.",
  {"user": (S, "User id, @handle or email"), "text": (S, "Message text")}, ["user", "text"])
T(s, "slack_schedule_message", "Queue a message to be posted to a channel at a future time.",
  {"channel": (S, "Channel"), "text": (S, "Message text"), "post_at": (S, "ISO time or unix timestamp")}, ["channel", "text", "post_at"])
T(s, "slack_list_channels", "List channels in the workspace (public by default, private ones the bot belongs to when requested).",
  {"types": (S, "public_channel, private_channel or both"), "limit": (I, "Max channels")})
T(s, "slack_create_channel", "Create a new channel.",
  {"name": (S, "Lowercase channel name without #"), "is_private": (B, "Create as private")}, ["name"])
T(s, "slack_invite_users", "Add one or more workspace members to a channel.",
  {"channel": (S, "Channel"), "users": (A, "User ids or emails")}, ["channel", "users"])
T(s, "slack_archive_channel", "Archive a channel so it becomes read-only and drops out of the sidebar.",
  {"channel": (S, "Channel")}, ["channel"])
T(s, "slack_get_channel_history", "Read recent messages from a channel, newest first. Optionally bound by oldest timestamp.",
  {"channel": (S, "Channel"), "oldest": (S, "Only messages after this time"), "limit": (I, "Max messages")}, ["channel"])
T(s, "slack_get_thread_replies", "Fetch all replies under a parent message.",
  {"channel": (S, "Channel"), "thread_ts": (S, "Timestamp of the parent message")}, ["channel", "thread_ts"])
T(s, "slack_search_messages", "Search messages across the workspace. Supports modifiers like in:#channel, from:@user, before:/after: dates.",
  {"query": (S, "Search query"), "count": (I, "Results per page")}, ["query"])
T(s, "slack_add_reaction", "React to a message with an emoji.",
  {"channel": (S, "Channel"), "timestamp": (S, "Message ts"), "name": (S, "Emoji name without colons, e.g. thumbsup")},
  ["channel", "timestamp", "name"])
T(s, "slack_set_status", "Set the user's custom status text and emoji, optionally expiring after a time. Empty text clears it.",
  {"status_text": (S, "Status text"), "status_emoji": (S, "Emoji like :palm_tree:"), "expiration": (S, "When the status clears")})
T(s, "slack_upload_file", "Upload a file and share it into one or more channels with an optional comment.",
  {"file_path": (S, "Local path"), "channels": (A, "Channels to share into"), "title": (S, "File title"), "initial_comment": (S, "Message with the file")},
  ["file_path"])
T(s, "slack_find_user_by_email", "Look up a workspace member by email and return their id, display name and timezone.",
  {"email": (S, "Email address")}, ["email"])

# ---------------------------------------------------------------- microsoft teams
m = "msteams"
T(m, "sendChannelMessage", "Post a message in a channel of a team.",
  {"teamId": (S, "Team id"), "channelId": (S, "Channel id"), "content": (S, "Message (HTML allowed)"), "replyToId": (S, "Optional parent message for a reply")},
  ["teamId", "channelId", "content"])
T(m, "sendChatMessage", "Send a message in a one-on-one or group chat. If the chat does not exist yet it is created from the recipient list.",
  {"chatId": (S, "Existing chat id"), "recipients": (A, "User emails when starting a new chat"), "content": (S, "Message text")},
  ["content"])
T(m, "listChats", "Lists the user's recent 1:1 and group chats with their last message preview.")
T(m, "listTeams", "List the teams the signed-in user is a member of.")
T(m, "listChannels", "List channels in a team.",
  {"teamId": (S, "Team id")}, ["teamId"])
T(m, "createChannel", "Create a standard, private or shared channel inside a team.",
  {"teamId": (S, "Team id"), "displayName": (S, "Channel name"), "description": (S, "Purpose"),
   "membershipType": (S, "Kind", ["standard", "private", "shared"])}, ["teamId", "displayName"])
T(m, "addTeamMember", "Add a user to a team as member or owner.",
  {"teamId": (S, "Team id"), "userEmail": (S, "User to add"), "role": (S, "Role", ["member", "owner"])}, ["teamId", "userEmail"])
T(m, "getChannelMessages", "Retrieve the latest messages (and reply counts) from a Teams channel.",
  {"teamId": (S, "Team id"), "channelId": (S, "Channel id"), "top": (I, "How many")}, ["teamId", "channelId"])
T(m, "createOnlineMeeting", "Create a Teams online meeting and return its join URL and dial-in details.",
  {"subject": (S, "Meeting subject"), "startDateTime": (S, "Start"), "endDateTime": (S, "End"),
   "participants": (A, "Attendee emails"), "lobbyBypass": (S, "Who skips the lobby", ["everyone", "organization", "organizer"])},
  ["subject", "startDateTime", "endDateTime"])
T(m, "getMeetingTranscript", "Download the transcript of a finished Teams meeting (speaker-labelled text).",
  {"meetingId": (S, "Online meeting id"), "format": (S, "Output", ["text", "vtt"])}, ["meetingId"])
T(m, "setPresence", "Set your Teams presence (Available, Busy, DoNotDisturb, BeRightBack, Away) for a duration.",
  {"availability": (S, "Presence", ["Available", "Busy", "DoNotDisturb", "BeRightBack", "Away"]),
   "expirationDuration": (S, "ISO 8601 duration, e.g. PT1H")}, ["availability"])

# ---------------------------------------------------------------- zoom
z = "zoom"
T(z, "meeting_create", "Schedule a Zoom meeting. Returns the join link, meeting ID and passcode.",
  {"topic": (S, "Meeting topic"), "start_time": (S, "ISO start; omit for an instant meeting"), "duration": (I, "Minutes"),
   "timezone": (S, "IANA zone"), "waiting_room": (B, "Hold people in a waiting room"), "recurrence": (S, "daily, weekly or monthly")},
  ["topic"])
T(z, "meeting_list", "List the user's meetings by type: scheduled, upcoming, live or previous.",
  {"type": (S, "Which meetings", ["scheduled", "upcoming", "live", "previous_meetings"])})
T(z, "meeting_get", "Get details for one meeting: join URL, passcode, start time, host, settings.",
  {"meeting_id": (S, "Numeric meeting id")}, ["meeting_id"])
T(z, "meeting_update", "Update a scheduled meeting's topic, time, duration or settings.",
  {"meeting_id": (S, "Meeting id"), "topic": (S, "New topic"), "start_time": (S, "New start"), "duration": (I, "New length")},
  ["meeting_id"])
T(z, "meeting_delete", "Delete a scheduled meeting. Optionally email registrants.",
  {"meeting_id": (S, "Meeting id"), "notify_registrants": (B, "Send cancellation email")}, ["meeting_id"])
T(z, "meeting_registrant_add", "Register a person for a meeting that requires registration; they receive a unique join link.",
  {"meeting_id": (S, "Meeting id"), "email": (S, "Registrant email"), "first_name": (S, "First name"), "last_name": (S, "Last name")},
  ["meeting_id", "email", "first_name"])
T(z, "participants_list", "Report who attended a past meeting, with join/leave times and duration per person.",
  {"meeting_uuid": (S, "UUID of the past meeting instance")}, ["meeting_uuid"])
T(z, "recording_list", "List cloud recordings in a date range.",
  {"from": (S, "Start date YYYY-MM-DD"), "to": (S, "End date")})
T(z, "recording_get_transcript", "Return the audio transcript (VTT) generated for a cloud-recorded meeting.",
  {"meeting_id": (S, "Meeting id or UUID")}, ["meeting_id"])
T(z, "recording_delete", "Move a meeting's cloud recording files to trash, or delete permanently.",
  {"meeting_id": (S, "Meeting id"), "action": (S, "trash or delete", ["trash", "delete"])}, ["meeting_id"])
T(z, "webinar_create", "Create a webinar (large one-to-many broadcast with panelists and registration).",
  {"topic": (S, "Title"), "start_time": (S, "ISO start"), "duration": (I, "Minutes"), "approval_type": (I, "0 auto, 1 manual, 2 none")},
  ["topic", "start_time"])

# ---------------------------------------------------------------- notion
n = "notion"
T(n, "notion-search", "Search pages and databases in the Notion workspace by title and content.",
  {"query": (S, "Text to look for"), "filter": (S, "Restrict to 'page' or 'database'", ["page", "database"])}, ["query"])
T(n, "notion-get-page", "Retrieve a page: its properties plus the content blocks rendered as Markdown.",
  {"page_id": (S, "Page id or URL")}, ["page_id"])
T(n, "notion-create-page", "Create a new page under a parent page, with a title and Markdown content.",
  {"parent_id": (S, "Parent page id"), "title": (S, "Page title"), "content": (S, "Markdown body"), "icon": (S, "Emoji icon")},
  ["parent_id", "title"])
T(n, "notion-update-page", "Update page properties (title, icon, status, dates, select values). Does not touch body content.",
  {"page_id": (S, "Page id"), "properties": (S, "JSON object of property values")}, ["page_id", "properties"])
T(n, "notion-append-blocks", "Append content (paragraphs, to-dos, headings, bullet lists) to the end of a page.",
  {"page_id": (S, "Page or block id"), "markdown": (S, "Content to add")}, ["page_id", "markdown"])
T(n, "notion-query-database", "Query a database with filters and sorts; returns matching rows with their properties.",
  {"database_id": (S, "Database id"), "filter": (S, "Filter JSON, e.g. Status equals Done"), "sorts": (S, "Sort JSON")},
  ["database_id"])
T(n, "notion-create-database", "Create a database (table) as a child of a page, with a schema of typed properties.",
  {"parent_id": (S, "Parent page"), "title": (S, "Database name"), "properties": (S, "Column definitions JSON")},
  ["parent_id", "title", "properties"])
T(n, "notion-add-database-row", "Insert a row into a database by setting its property values.",
  {"database_id": (S, "Database id"), "properties": (S, "Values JSON keyed by column name")}, ["database_id", "properties"])
T(n, "notion-add-comment", "Leave a comment on a page or reply in an existing discussion.",
  {"page_id": (S, "Page id"), "discussion_id": (S, "Existing discussion to reply to"), "text": (S, "Comment")}, ["text"])
T(n, "notion-list-comments", "List open comments and discussions on a page.",
  {"page_id": (S, "Page id")}, ["page_id"])
T(n, "notion-archive-page", "Move a page to trash (archived=true) or restore it (archived=false).",
  {"page_id": (S, "Page id"), "archived": (B, "true to trash, false to restore")}, ["page_id"])
T(n, "notion-move-page", "Move a page under a different parent page or database.",
  {"page_id": (S, "Page"), "new_parent_id": (S, "Destination")}, ["page_id", "new_parent_id"])

# ---------------------------------------------------------------- google workspace (drive, docs, sheets)
w = "google_workspace"
T(w, "drive_search_files", "Search Google Drive by name, full text or type. Accepts Drive query syntax (name contains, mimeType, modifiedTime).",
  {"query": (S, "Search text or Drive query"), "mime_type": (S, "Restrict to a type, e.g. application/pdf"), "page_size": (I, "Limit")},
  ["query"])
T(w, "drive_list_folder", "List the files and subfolders in a Drive folder.",
  {"folder_id": (S, "Folder id; 'root' for My Drive"), "order_by": (S, "e.g. modifiedTime desc")})
T(w, "drive_upload_file", "Upload a local file to Google Drive, optionally into a folder and converting Office files to Google formats.",
  {"local_path": (S, "File on disk"), "parent_id": (S, "Destination folder"), "convert": (B, "Convert to Docs/Sheets/Slides")},
  ["local_path"])
T(w, "drive_download_file", "Download a Drive file. Google Docs/Sheets/Slides are exported to the format you choose (pdf, docx, xlsx, csv).",
  {"file_id": (S, "File id"), "export_format": (S, "Export type for Google-native files"), "save_to": (S, "Local path")},
  ["file_id"])
T(w, "drive_create_folder", "Create a folder in Drive.",
  {"name": (S, "Folder name"), "parent_id": (S, "Parent folder")}, ["name"])
T(w, "drive_move_file", "Move a file or folder into another folder, or rename it at the same time.",
  {"file_id": (S, "Item to move"), "new_parent_id": (S, "Destination folder"), "new_name": (S, "Optional new name")}, ["file_id"])
T(w, "drive_delete_file", "Move a file to the Drive trash, or delete it permanently.",
  {"file_id": (S, "File id"), "permanent": (B, "Skip the trash")}, ["file_id"])
T(w, "drive_share_file", "Grant a specific person or group access to a file or folder as viewer, commenter or editor, and optionally email them.",
  {"file_id": (S, "File id"), "email": (S, "Person or group"), "role": (S, "Access level", ["reader", "commenter", "writer"]),
   "notify": (B, "Send notification email"), "message": (S, "Note in the notification")}, ["file_id", "email", "role"])
T(w, "drive_create_link", "Turn on link sharing: anyone who has the URL can open the file without signing in. Returns the URL.",
  {"file_id": (S, "File id"), "role": (S, "What link holders may do", ["reader", "commenter", "writer"]),
   "domain_only": (B, "Limit to people in your organization")}, ["file_id"])
T(w, "drive_list_permissions", "Show who has access to a file and with what role, including whether link sharing is on.",
  {"file_id": (S, "File id")}, ["file_id"])
T(w, "drive_remove_permission", "Revoke a person's access to a file, or switch off 'anyone with the link'.",
  {"file_id": (S, "File id"), "email": (S, "Person to remove; use 'anyone' for the public link")}, ["file_id", "email"])
T(w, "docs_create_document", "Create a Google Doc with a title and optional starting text.",
  {"title": (S, "Document title"), "content": (S, "Initial text"), "folder_id": (S, "Drive folder")}, ["title"])
T(w, "docs_get_document", "Read a Google Doc and return its text with headings.",
  {"document_id": (S, "Doc id or URL")}, ["document_id"])
T(w, "docs_insert_text", "Insert text into a Google Doc at an index, or at the end when no index is given.",
  {"document_id": (S, "Doc id"), "text": (S, "Text to insert"), "index": (I, "Character position")}, ["document_id", "text"])
T(w, "docs_replace_text", "Find every occurrence of a string in a Google Doc and replace it.",
  {"document_id": (S, "Doc id"), "find": (S, "Text to look for"), "replace_with": (S, "Replacement"), "match_case": (B, "Case sensitive")},
  ["document_id", "find", "replace_with"])
T(w, "sheets_create_spreadsheet", "Create a new Google Sheets spreadsheet, optionally with named tabs and a header row.",
  {"title": (S, "Spreadsheet title"), "tabs": (A, "Tab names"), "headers": (A, "Column headers for the first tab")}, ["title"])
T(w, "sheets_read_range", "Read cell values from a range in A1 notation, e.g. 'Budget!A1:F40'.",
  {"spreadsheet_id": (S, "Spreadsheet id"), "range": (S, "A1 range")}, ["spreadsheet_id", "range"])
T(w, "sheets_write_range", "Overwrite the cells in a range with the given values (formulas allowed).",
  {"spreadsheet_id": (S, "Spreadsheet id"), "range": (S, "A1 range"), "values": (A, "Rows of values", "array")},
  ["spreadsheet_id", "range", "values"])
T(w, "sheets_append_rows", "Append rows after the last filled row of a sheet.",
  {"spreadsheet_id": (S, "Spreadsheet id"), "sheet": (S, "Tab name"), "rows": (A, "Rows to add", "array")},
  ["spreadsheet_id", "rows"])
T(w, "sheets_add_tab", "Add a new tab (worksheet) to an existing spreadsheet.",
  {"spreadsheet_id": (S, "Spreadsheet id"), "title": (S, "Tab name")}, ["spreadsheet_id", "title"])
T(w, "sheets_format_cells", "Apply formatting to a range: bold, colors, number or currency format, column width, freeze header.",
  {"spreadsheet_id": (S, "Spreadsheet id"), "range": (S, "A1 range"), "bold": (B, "Bold text"),
   "background_color": (S, "Hex color"), "number_format": (S, "e.g. CURRENCY, PERCENT, DATE"), "freeze_rows": (I, "Rows to freeze")},
  ["spreadsheet_id", "range"])

# ---------------------------------------------------------------- dropbox
d = "dropbox"
T(d, "files_upload", "Upload a file to a Dropbox path (overwrite or autorename on conflict).",
  {"local_path": (S, "File on disk"), "dropbox_path": (S, "Destination such as /Clients/logo.png"),
   "mode": (S, "Conflict handling", ["add", "overwrite"])}, ["local_path", "dropbox_path"])
T(d, "files_download", "Download a file from Dropbox to local disk.",
  {"path": (S, "Dropbox path"), "save_to": (S, "Local destination")}, ["path"])
T(d, "files_search", "Search file and folder names (and content for supported types) in Dropbox.",
  {"query": (S, "Search terms"), "path": (S, "Limit to this folder"), "file_extensions": (A, "e.g. pdf, jpg")}, ["query"])
T(d, "files_list_folder", "List the contents of a Dropbox folder. recursive=true walks subfolders.",
  {"path": (S, "Folder path; empty for root"), "recursive": (B, "Include subfolders")})
T(d, "files_delete", "Delete a file or folder at a path. Deleted items can be restored for a limited time.",
  {"path": (S, "Path to delete")}, ["path"])
T(d, "files_move", "Move or rename a file or folder.",
  {"from_path": (S, "Current path"), "to_path": (S, "New path")}, ["from_path", "to_path"])
T(d, "files_restore", "Restore a file to an earlier revision, or bring back a deleted file.",
  {"path": (S, "File path"), "rev": (S, "Revision id to restore")}, ["path"])
T(d, "sharing_create_shared_link", "Create a shared link for a file or folder. Anyone with the link can view; optional password and expiry on paid plans.",
  {"path": (S, "Item to share"), "expires": (S, "Expiry date-time"), "link_password": (S, "Optional password")}, ["path"])
T(d, "sharing_revoke_shared_link", "Disable an existing shared link so it stops working.",
  {"url": (S, "The shared link URL")}, ["url"])
T(d, "sharing_add_folder_member", "Invite people to a shared folder as editors or viewers.",
  {"path": (S, "Folder path"), "emails": (A, "Invitees"), "access_level": (S, "Access", ["editor", "viewer"])},
  ["path", "emails"])
T(d, "file_requests_create", "Create a file request: a link that lets anyone upload files into one of your folders, even without a Dropbox account.",
  {"title": (S, "What you are asking for"), "destination": (S, "Folder that receives uploads"), "deadline": (S, "Optional deadline")},
  ["title", "destination"])

# ---------------------------------------------------------------- trello
t = "trello"
T(t, "getBoards", "Get all boards for the member.")
T(t, "getLists", "Get the lists (columns) on a board.",
  {"boardId": (S, "Board id")}, ["boardId"])
T(t, "getCards", "Get cards on a board or in one list, with due dates, labels and members.",
  {"boardId": (S, "Board id"), "listId": (S, "Optional list to narrow to")}, ["boardId"])
T(t, "searchCards", "Search cards across your boards by keyword, label or member.",
  {"query": (S, "Search text"), "boardId": (S, "Optional board scope")}, ["query"])
T(t, "createCard", "Create a card in a list. Can set description, due date, labels and members.",
  {"listId": (S, "List id"), "name": (S, "Card title"), "desc": (S, "Description"), "due": (S, "Due date"),
   "labels": (A, "Label names"), "members": (A, "Member ids")}, ["listId", "name"])
T(t, "updateCard", "Update a card's title, description, due date or labels.",
  {"cardId": (S, "Card id"), "name": (S, "Title"), "desc": (S, "Description"), "due": (S, "Due date"), "dueComplete": (B, "Mark due date done")},
  ["cardId"])
T(t, "moveCard", "Move a card to a different list (e.g. from Doing to Done), optionally on another board.",
  {"cardId": (S, "Card id"), "listId": (S, "Target list"), "pos": (S, "top or bottom")}, ["cardId", "listId"])
T(t, "archiveCard", "Archive (close) a card.",
  {"cardId": (S, "Card id")}, ["cardId"])
T(t, "addComment", "Add a comment to a card.",
  {"cardId": (S, "Card id"), "text": (S, "Comment text")}, ["cardId", "text"])
T(t, "addChecklist", "Add a checklist with items to a card.",
  {"cardId": (S, "Card id"), "name": (S, "Checklist title"), "items": (A, "Checklist items")}, ["cardId", "name"])
T(t, "assignMember", "Assign a board member to a card.",
  {"cardId": (S, "Card id"), "memberId": (S, "Member id or username")}, ["cardId", "memberId"])
T(t, "createList", "Add a new list (column) to a board.",
  {"boardId": (S, "Board id"), "name": (S, "List name"), "pos": (S, "Position")}, ["boardId", "name"])

# ---------------------------------------------------------------- asana
a = "asana"
T(a, "asana_create_task", "Create a task in a project or in My Tasks, with assignee, due date and notes.",
  {"name": (S, "Task name"), "project_id": (S, "Project gid"), "assignee": (S, "Email or 'me'"), "due_on": (S, "YYYY-MM-DD"),
   "notes": (S, "Description")}, ["name"])
T(a, "asana_update_task", "Update a task: rename, reassign, change due date, notes or custom fields.",
  {"task_id": (S, "Task gid"), "name": (S, "New name"), "assignee": (S, "New assignee"), "due_on": (S, "New due date"), "notes": (S, "New notes")},
  ["task_id"])
T(a, "asana_complete_task", "Mark a task complete (or reopen it with completed=false).",
  {"task_id": (S, "Task gid"), "completed": (B, "Defaults to true")}, ["task_id"])
T(a, "asana_get_task", "Get full details of a task including subtasks, followers and custom fields.",
  {"task_id": (S, "Task gid")}, ["task_id"])
T(a, "asana_search_tasks", "Search tasks in a workspace by text, assignee, project, due date range or completion.",
  {"text": (S, "Words to match"), "assignee": (S, "Filter by assignee"), "project_id": (S, "Filter by project"),
   "due_before": (S, "Due on or before"), "completed": (B, "Completion filter")})
T(a, "asana_list_my_tasks", "List tasks assigned to the current user that are not yet complete, grouped by due date.",
  {"due_within_days": (I, "Only tasks due within N days")})
T(a, "asana_add_subtask", "Create a subtask underneath an existing task.",
  {"parent_task_id": (S, "Parent task gid"), "name": (S, "Subtask name"), "assignee": (S, "Assignee")}, ["parent_task_id", "name"])
T(a, "asana_add_comment", "Post a comment on a task's activity feed.",
  {"task_id": (S, "Task gid"), "text": (S, "Comment text")}, ["task_id", "text"])
T(a, "asana_create_project", "Create a project in a team, choosing list or board layout.",
  {"name": (S, "Project name"), "team_id": (S, "Team gid"), "layout": (S, "list or board", ["list", "board"]), "due_on": (S, "Project due date")},
  ["name"])
T(a, "asana_list_projects", "List projects in a workspace or team.",
  {"team_id": (S, "Optional team filter"), "archived": (B, "Include archived")})
T(a, "asana_delete_task", "Permanently delete a task.",
  {"task_id": (S, "Task gid")}, ["task_id"])
T(a, "asana_create_status_update", "Post a project status update (on track / at risk / off track) with a summary for stakeholders.",
  {"project_id": (S, "Project gid"), "status": (S, "Health", ["on_track", "at_risk", "off_track"]), "text": (S, "Summary")},
  ["project_id", "status", "text"])

# ---------------------------------------------------------------- typeform
f = "typeform"
T(f, "create-form", "Create a new form or survey from a list of fields (short text, multiple choice, rating, email, yes/no).",
  {"title": (S, "Form title"), "fields": (A, "Field definitions: {type, title, choices}", "object")}, ["title", "fields"])
T(f, "list-forms", "List forms in the account with their ids and response counts.",
  {"search": (S, "Filter by title"), "page_size": (I, "Limit")})
T(f, "get-form", "Get a form's definition: its questions, logic and settings.",
  {"form_id": (S, "Form id")}, ["form_id"])
T(f, "update-form", "Edit a form: change title, add or remove questions, or close it to new responses.",
  {"form_id": (S, "Form id"), "title": (S, "New title"), "fields": (A, "Replacement fields", "object"), "is_public": (B, "false closes the form")},
  ["form_id"])
T(f, "delete-form", "Delete a form along with all its responses. Irreversible.",
  {"form_id": (S, "Form id")}, ["form_id"])
T(f, "get-responses", "Retrieve submitted answers for a form, filterable by date and completion.",
  {"form_id": (S, "Form id"), "since": (S, "Only responses after this date"), "completed": (B, "Only finished submissions"),
   "page_size": (I, "Limit")}, ["form_id"])
T(f, "form-insights", "Summary metrics for a form: views, starts, submissions, completion rate, average time and drop-off per question.",
  {"form_id": (S, "Form id")}, ["form_id"])

# ---------------------------------------------------------------- miro
r = "miro"
T(r, "create_board", "Create a new Miro board.",
  {"name": (S, "Board name"), "description": (S, "Description"), "team_id": (S, "Team")}, ["name"])
T(r, "list_boards", "List boards you can access, optionally filtered by name.",
  {"query": (S, "Name filter")})
T(r, "get_board_items", "Get the items on a board (sticky notes, shapes, text, frames, connectors) with their content and positions.",
  {"board_id": (S, "Board id"), "type": (S, "Optional item type filter")}, ["board_id"])
T(r, "add_sticky_note", "Place a sticky note with text on a board.",
  {"board_id": (S, "Board id"), "content": (S, "Note text"), "color": (S, "yellow, green, pink..."), "x": (I, "X position"), "y": (I, "Y position")},
  ["board_id", "content"])
T(r, "add_shape", "Draw a shape (rectangle, circle, triangle, rhombus...) with optional text on a board.",
  {"board_id": (S, "Board id"), "shape": (S, "Shape type"), "content": (S, "Text inside"), "x": (I, "X"), "y": (I, "Y")},
  ["board_id", "shape"])
T(r, "connect_items", "Draw a connector line or arrow between two board items.",
  {"board_id": (S, "Board id"), "start_item_id": (S, "From item"), "end_item_id": (S, "To item"), "caption": (S, "Label on the line")},
  ["board_id", "start_item_id", "end_item_id"])
T(r, "add_frame", "Add a frame (a titled area used to group content or as a slide) to a board.",
  {"board_id": (S, "Board id"), "title": (S, "Frame title"), "width": (I, "Width"), "height": (I, "Height")}, ["board_id"])
T(r, "invite_to_board", "Share a board with people by email as viewer, commenter or editor.",
  {"board_id": (S, "Board id"), "emails": (A, "People to invite"), "role": (S, "Role", ["viewer", "commenter", "editor"])},
  ["board_id", "emails"])
T(r, "copy_board", "Duplicate an existing board, e.g. to reuse a retro or planning template.",
  {"board_id": (S, "Board to copy"), "name": (S, "Name for the copy")}, ["board_id"])

# ---------------------------------------------------------------- deepl
l = "deepl"
T(l, "translate_text", "Translate text into a target language. Source language is auto-detected unless given. Supports formality and glossaries.",
  {"text": (A, "One or more strings"), "target_lang": (S, "Target language code, e.g. DE, FR, EN-US"), "source_lang": (S, "Optional source code"),
   "formality": (S, "more or less formal", ["default", "more", "less"]), "glossary_id": (S, "Glossary to apply")},
  ["text", "target_lang"])
T(l, "translate_document", "Translate a whole file (docx, pptx, pdf, html, txt) keeping its layout; returns the translated file.",
  {"file_path": (S, "Input file"), "target_lang": (S, "Target language"), "output_path": (S, "Where to save")},
  ["file_path", "target_lang"])
T(l, "detect_language", "Identify which language a piece of text is written in.",
  {"text": (S, "Sample text")}, ["text"])
T(l, "list_languages", "List supported source and target languages, and which targets support formality.",
  {"type": (S, "source or target", ["source", "target"])})
T(l, "create_glossary", "Create a glossary of fixed term pairs so specific words are always rendered the same way.",
  {"name": (S, "Glossary name"), "source_lang": (S, "From"), "target_lang": (S, "To"), "entries": (S, "Tab-separated term pairs")},
  ["name", "source_lang", "target_lang", "entries"])
T(l, "get_usage", "Characters used versus the quota in the current billing period.")
T(l, "rephrase_text", "Improve the wording of text in the same language: fix grammar and style, optionally in a tone such as business, casual or friendly.",
  {"text": (S, "Text to polish"), "tone": (S, "Tone", ["default", "business", "casual", "friendly", "academic"])}, ["text"])

with open(os.path.join(HERE, "tools.json"), "w") as fh:
    json.dump(TOOLS, fh, indent=1, ensure_ascii=False)
    fh.write("\n")
from collections import Counter
print(len(TOOLS), "tools;", Counter(x["server"] for x in TOOLS))
