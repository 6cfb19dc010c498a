"""Gmail (snake_case) and Google Calendar (kebab-case)."""
from _common import Server

gm = Server("gmail")
t = gm.t
MSG = "*Message ID"
t("send_email", "Compose and send an email immediately. Supports cc, bcc, HTML bodies and attachments from Drive links.",
  to=("array", "*Recipient addresses"), subject="*Subject", body="*Plain-text or HTML body", cc=("array", "Cc"),
  bcc=("array", "Bcc"), attachments=("array", "File paths or Drive URLs to attach"))
t("draft_email", "Save an email as a draft without sending it.", to=("array", "Recipients"), subject="Subject",
  body="Body", thread_id="Thread to reply within")
t("send_draft", "Send a previously saved draft.", draft_id="*Draft ID")
t("list_drafts", "List saved drafts, newest first.", max_results=("integer", "Page size"))
t("reply_to_message", "Reply to a message in its thread, or reply-all.", message_id=MSG, body="*Reply body",
  reply_all=("boolean", "Include everyone on the thread"))
t("forward_message", "Forward a message, with its attachments, to new recipients.", message_id=MSG,
  to=("array", "*Recipients"), note="Text added above the forwarded message")
t("search_messages", "Search the mailbox with Gmail query syntax (from:, to:, subject:, has:attachment, after:, label:).",
  query="*Gmail search query", max_results=("integer", "Max results"), include_spam_trash=("boolean", "Include spam and trash"))
t("read_message", "Read one message: headers, body text and attachment list.", message_id=MSG,
  format=("string", "Detail", ["full", "metadata", "minimal", "raw"]))
t("get_thread", "Get a whole conversation thread with every message in order.", thread_id="*Thread ID")
t("list_messages", "List messages in the inbox or under a label, newest first.", label_ids=("array", "Label IDs, e.g. INBOX"),
  max_results=("integer", "Page size"), page_token="Next page token")
t("get_attachment", "Download an attachment from a message as base64 data.", message_id=MSG, attachment_id="*Attachment ID")
t("modify_labels", "Add or remove labels on a message; removing UNREAD marks it read, adding STARRED stars it.",
  message_id=MSG, add_label_ids=("array", "Labels to add"), remove_label_ids=("array", "Labels to remove"))
t("batch_modify_labels", "Add or remove labels on many messages at once (up to 1,000).", message_ids=("array", "*Message IDs"),
  add_label_ids=("array", "Labels to add"), remove_label_ids=("array", "Labels to remove"))
t("archive_message", "Archive a message: remove it from the inbox but keep it in All Mail.", message_id=MSG)
t("trash_message", "Move a message to the trash, where it is deleted after 30 days.", message_id=MSG)
t("untrash_message", "Take a message back out of the trash.", message_id=MSG)
t("mark_as_spam", "Report a message as spam and move it to the Spam folder.", message_id=MSG)
t("list_labels", "List the mailbox's system and user labels with unread counts.")
t("create_label", "Create a user label, optionally nested (Parent/Child) and colored.", name="*Label name",
  background_color="Hex background color", text_color="Hex text color")
t("delete_label", "Remove a user label; messages keep existing but lose the label.", label_id="*Label ID")
t("create_filter", "Create a rule that acts on incoming mail matching criteria: label it, archive it, forward it or delete it.",
  criteria=("object", "*from, to, subject, query, has_attachment"),
  action=("object", "*add_label_ids, remove_label_ids, forward"))
t("list_filters", "List the mail filters (rules) in the account.")
t("delete_filter", "Delete a mail filter.", filter_id="*Filter ID")
t("get_vacation_settings", "Read the vacation responder (out-of-office auto-reply) settings.")
t("set_vacation_responder", "Turn the out-of-office auto-reply on or off with a subject, message and date range.",
  enable=("boolean", "*On or off"), subject="Subject", message="Reply text", start_time="Start (epoch ms)",
  end_time="End (epoch ms)", restrict_to_contacts=("boolean", "Only reply to contacts"))
t("update_signature", "Change the signature appended to outgoing mail for a send-as address.",
  send_as_email="*Address", signature="*HTML signature")
t("list_send_as", "List the addresses and aliases the account can send mail as.")
t("add_forwarding_address", "Register an address that mail may be auto-forwarded to (needs verification).",
  forwarding_email="*Address")
t("get_profile", "Get the mailbox owner's address, message and thread totals.")
t("unsubscribe", "Use a message's List-Unsubscribe header to stop receiving that mailing list.", message_id=MSG)
t("snooze_message", "Hide a message from the inbox until a given time, when it comes back as new.",
  message_id=MSG, until="*ISO 8601 time to bring it back")
t("block_sender", "Block a sender so future messages from them go straight to Spam.", email="*Sender address")
TOOLS = gm.tools

gc = Server("gcal")
t = gc.t
CAL = "Calendar ID ('primary' by default)"
EV = "*Event ID"
t("list-events", "List events on a calendar between two times, expanding recurring events into instances.",
  calendarId=CAL, timeMin="*Start of range (RFC 3339)", timeMax="*End of range", q="Free-text filter",
  maxResults=("integer", "Max events"))
t("search-events", "Find events whose title, description, location or attendees match text.", calendarId=CAL,
  query="*Text", timeMin="From", timeMax="Until")
t("get-event", "Get an event's details: time, attendees and their responses, conference link, recurrence.",
  calendarId=CAL, eventId=EV)
t("create-event", "Schedule an event with attendees, location, description, reminders and a Google Meet link.",
  calendarId=CAL, summary="*Title", start="*Start time", end="*End time", timeZone="IANA time zone",
  attendees=("array", "Guest emails"), location="Location", description="Agenda", addMeet=("boolean", "Add a Meet link"),
  recurrence=("array", "RRULE lines"))
t("update-event", "Change an event's time, title, attendees, location or description and notify guests.",
  calendarId=CAL, eventId=EV, start="New start", end="New end", summary="Title", attendees=("array", "Guests"),
  sendUpdates=("string", "Who to notify", ["all", "externalOnly", "none"]))
t("delete-event", "Cancel an event and optionally email the guests about it.", calendarId=CAL, eventId=EV,
  sendUpdates=("string", "Who to notify", ["all", "externalOnly", "none"]))
t("quick-add", "Create an event from a sentence like 'Lunch with Sam Friday 12:30 at Rosa'.", calendarId=CAL,
  text="*Natural-language description")
t("move-event", "Move an event to a different calendar.", calendarId="*Current calendar", eventId=EV,
  destination="*Target calendar ID")
t("respond-to-event", "Accept, decline or tentatively accept an invitation, with an optional note.", calendarId=CAL,
  eventId=EV, response=("string", "*RSVP", ["accepted", "declined", "tentative"]), comment="Note to the organizer")
t("list-event-instances", "List the individual occurrences of a recurring event.", calendarId=CAL, eventId=EV,
  timeMin="From", timeMax="Until")
t("get-freebusy", "Check when people or calendars are busy within a time window.", items=("array", "*Calendar IDs or emails"),
  timeMin="*Start", timeMax="*End", timeZone="Time zone")
t("find-meeting-times", "Suggest slots when all given attendees are free, within working hours.",
  attendees=("array", "*Emails"), durationMinutes=("integer", "*Meeting length"), windowStart="Earliest", windowEnd="Latest")
t("list-calendars", "List the calendars in the user's calendar list with access roles and colors.")
t("create-calendar", "Create a secondary calendar, e.g. for a team or project.", summary="*Name", timeZone="Time zone",
  description="Description")
t("delete-calendar", "Delete a secondary calendar and all of its events.", calendarId="*Calendar ID")
t("clear-calendar", "Remove every event from the primary calendar.", calendarId="*Must be 'primary'")
t("share-calendar", "Give a person or group access to a calendar (see free/busy, read, write or owner).",
  calendarId="*Calendar ID", email="*Grantee", role=("string", "*Access", ["freeBusyReader", "reader", "writer", "owner"]))
t("list-calendar-acl", "List who has access to a calendar and at what level.", calendarId="*Calendar ID")
t("remove-calendar-access", "Revoke someone's access to a calendar.", calendarId="*Calendar ID", ruleId="*ACL rule ID")
t("subscribe-calendar", "Add an existing calendar (a colleague's or a public holiday calendar) to your list.",
  calendarId="*Calendar ID to add")
t("set-working-location", "Set where you are working on a day: home, office or elsewhere.", date="*Day",
  type=("string", "*Location type", ["homeOffice", "officeLocation", "customLocation"]), label="Office or place name")
t("create-out-of-office", "Block time as out of office; new invitations in that period are declined automatically.",
  start="*Start", end="*End", declineMessage="Message sent with declines")
t("create-focus-time", "Block focus time that mutes chat notifications and can auto-decline meetings.", start="*Start",
  end="*End", autoDecline=("boolean", "Decline conflicting invitations"))
t("get-settings", "Read the user's calendar settings: time zone, week start, default event length.")
t("set-event-reminders", "Override the reminders (popup or email, minutes before) of an event.", calendarId=CAL, eventId=EV,
  reminders=("array", "*Objects with method and minutes"))
t("add-attendees", "Invite more guests to an existing event.", calendarId=CAL, eventId=EV, emails=("array", "*Emails"),
  optional=("boolean", "Mark them optional"))
t("list-colors", "List the color palette available for calendars and events.")
t("import-ics", "Import events from an iCalendar (.ics) file into a calendar.", calendarId=CAL, ics="*ICS content")
t("watch-events", "Subscribe a webhook to changes on a calendar's events.", calendarId=CAL, address="*HTTPS callback URL")
t("get-current-time", "Get the current date and time in the user's calendar time zone, for resolving 'tomorrow' or 'next Monday'.",
  timeZone="Override time zone")
TOOLS += gc.tools
