"""Microsoft Teams (camelCase) and Outlook (PascalCase, Graph style)."""
from _common import Server

tm = Server("teams", titles=True)
t = tm.t
TEAM = "*Team ID"
CH = "*Channel ID"
t("sendChannelMessage", "Post a message to a channel in a team. Supports HTML, @mentions and importance.",
  teamId=TEAM, channelId=CH, content="*Message (HTML or text)", importance=("string", "Importance", ["normal", "high", "urgent"]),
  mentions=("array", "Users to @mention"))
t("replyToChannelMessage", "Reply in the thread of a channel post.", teamId=TEAM, channelId=CH, messageId="*Parent message ID",
  content="*Reply text")
t("listChannelMessages", "Read recent posts in a channel, newest first, without replies.", teamId=TEAM, channelId=CH,
  top=("integer", "Number of posts"))
t("getMessageReplies", "Get the replies under a channel post.", teamId=TEAM, channelId=CH, messageId="*Message ID")
t("sendChatMessage", "Send a message in a one-on-one or group chat.", chatId="*Chat ID", content="*Message text")
t("createChat", "Start a one-on-one or group chat with the given people, optionally with a topic.",
  members=("array", "*User emails or IDs"), topic="Group chat topic")
t("listChats", "List your recent chats with their members and last message preview.", top=("integer", "Number of chats"))
t("listChatMessages", "Read the messages in a chat.", chatId="*Chat ID", top=("integer", "Number of messages"))
t("editMessage", "Edit the text of a message you sent.", chatId="Chat ID", teamId="Team ID", channelId="Channel ID",
  messageId="*Message ID", content="*New text")
t("deleteMessage", "Soft-delete one of your messages in a chat or channel.", chatId="Chat ID", teamId="Team ID",
  channelId="Channel ID", messageId="*Message ID")
t("setReaction", "React to a message with like, heart, laugh, surprised, sad or angry.", messageId="*Message ID",
  chatId="Chat ID", reactionType=("string", "*Reaction", ["like", "heart", "laugh", "surprised", "sad", "angry"]))
t("pinMessage", "Pin a message to the top of a chat.", chatId="*Chat ID", messageId="*Message ID")
t("listJoinedTeams", "List the teams you are a member of.")
t("getTeam", "Get a team's settings, description and visibility.", teamId=TEAM)
t("createTeam", "Create a team from scratch or from a template such as project or event.", displayName="*Name",
  description="Description", visibility=("string", "Visibility", ["private", "public"]), template="Template ID")
t("archiveTeam", "Archive a team so it becomes read-only.", teamId=TEAM)
t("listChannels", "List the channels of a team, including private and shared ones.", teamId=TEAM)
t("createChannel", "Add a standard, private or shared channel to a team.", teamId=TEAM, displayName="*Channel name",
  description="Description", membershipType=("string", "Type", ["standard", "private", "shared"]))
t("renameChannel", "Change a channel's name or description.", teamId=TEAM, channelId=CH, displayName="New name",
  description="New description")
t("deleteChannel", "Delete a channel; its content is kept for 30 days.", teamId=TEAM, channelId=CH)
t("listTeamMembers", "List the members and owners of a team.", teamId=TEAM)
t("addTeamMember", "Add a person to a team as a member or owner.", teamId=TEAM, userId="*User ID or email",
  role=("string", "Role", ["member", "owner"]))
t("removeTeamMember", "Remove a person from a team.", teamId=TEAM, userId="*User ID or email")
t("addChannelTab", "Pin an app or website as a tab in a channel, such as a Planner board or a wiki page.",
  teamId=TEAM, channelId=CH, displayName="*Tab name", url="*Content URL", appId="Teams app ID")
t("listChannelFiles", "List the files in a channel's Files tab (its SharePoint folder).", teamId=TEAM, channelId=CH)
t("createOnlineMeeting", "Create a Teams meeting link with start and end times, not tied to a calendar event.",
  subject="*Subject", startDateTime="*Start", endDateTime="*End", participants=("array", "Attendee emails"),
  lobbyBypass=("string", "Who skips the lobby", ["organizer", "organization", "everyone"]))
t("getMeetingTranscript", "Get the transcript of a recorded meeting, with speaker names and timestamps.",
  meetingId="*Online meeting ID", format=("string", "Format", ["text/vtt", "text/plain"]))
t("getMeetingAttendanceReport", "Get who joined a meeting, when, and for how long.", meetingId="*Online meeting ID")
t("getPresence", "Get a user's availability (Available, Busy, Away, Do not disturb) and activity.", userId="*User ID or email")
t("setStatusMessage", "Set your status message, optionally expiring at a time and shown when people message you.",
  message="*Status text", expiresAt="Expiry time", pinned=("boolean", "Show when people message you"))
t("searchMessages", "Search chat and channel messages you can see for keywords, sender or date.", query="*KQL query",
  from_="Sender", after="Date")
t("sendActivityNotification", "Send an activity-feed notification to a user from an app.", userId="*Recipient",
  text="*Preview text", activityType="*Activity type defined in the app manifest")
TOOLS = tm.tools

ol = Server("outlook")
t = ol.t
MID = "*Message ID"
t("SendMail", "Send an email from the signed-in user's mailbox. Saves a copy in Sent Items by default.",
  to=("array", "*Recipients"), subject="*Subject", body="*Body", bodyType=("string", "Body type", ["text", "html"]),
  cc=("array", "Cc"), importance=("string", "Importance", ["low", "normal", "high"]), saveToSentItems=("boolean", "Keep a copy"))
t("CreateDraft", "Create a draft message in the Drafts folder for later editing or sending.", to=("array", "Recipients"),
  subject="Subject", body="Body")
t("SendDraft", "Send an existing draft message.", messageId=MID)
t("ReplyToMessage", "Reply to the sender of a message, or to everyone with replyAll.", messageId=MID, comment="*Reply text",
  replyAll=("boolean", "Reply to all recipients"))
t("ForwardMessage", "Forward a message to other people with a comment.", messageId=MID, toRecipients=("array", "*Recipients"),
  comment="Comment")
t("ListMessages", "List messages in a mail folder (Inbox by default) with OData $filter, $search and $top.",
  folderId="Folder ID or well-known name (inbox, sentitems, drafts)", filter="OData filter, e.g. isRead eq false",
  search="KQL search string", top=("integer", "Page size"))
t("GetMessage", "Get a message's headers, body and attachment list.", messageId=MID)
t("MoveMessage", "Move a message to another folder, such as Archive or a custom folder.", messageId=MID,
  destinationId="*Folder ID or well-known name")
t("DeleteMessage", "Move a message to Deleted Items.", messageId=MID)
t("UpdateMessage", "Mark a message read or unread, flag it, or set its categories and importance.", messageId=MID,
  isRead=("boolean", "Read state"), flag=("string", "Flag status", ["notFlagged", "flagged", "complete"]),
  categories=("array", "Category names"))
t("ListAttachments", "List the attachments on a message or event.", messageId=MID)
t("GetAttachment", "Download one attachment's content.", messageId=MID, attachmentId="*Attachment ID")
t("ListMailFolders", "List mail folders with unread and total item counts.", includeHidden=("boolean", "Include hidden folders"))
t("CreateMailFolder", "Create a mail folder, optionally nested under another.", displayName="*Folder name",
  parentFolderId="Parent folder")
t("CreateInboxRule", "Create an inbox rule that moves, flags, forwards or deletes matching incoming messages.",
  displayName="*Rule name", conditions=("object", "*Conditions, e.g. fromAddresses, subjectContains"),
  actions=("object", "*Actions, e.g. moveToFolder, markAsRead, forwardTo"))
t("ListInboxRules", "List inbox rules in evaluation order.")
t("GetAutomaticReplies", "Read the automatic replies (out of office) configuration.")
t("SetAutomaticReplies", "Turn automatic replies on, off or scheduled with internal and external messages.",
  status=("string", "*Status", ["disabled", "alwaysEnabled", "scheduled"]), internalReplyMessage="Message for colleagues",
  externalReplyMessage="Message for outsiders", scheduledStartDateTime="Start", scheduledEndDateTime="End")
t("ListEvents", "List calendar events in a date range, with recurring ones expanded.", startDateTime="*Range start",
  endDateTime="*Range end", calendarId="Calendar (default calendar if omitted)")
t("CreateEvent", "Create a calendar event and send invitations; can be a Teams online meeting.", subject="*Subject",
  start="*Start", end="*End", attendees=("array", "Attendee emails"), location="Location",
  isOnlineMeeting=("boolean", "Add a Teams link"), body="Agenda")
t("UpdateEvent", "Reschedule or edit an event; attendees get an updated invitation.", eventId="*Event ID", start="Start",
  end="End", subject="Subject", location="Location")
t("CancelEvent", "Cancel a meeting you organize and send a cancellation note to attendees.", eventId="*Event ID",
  comment="Cancellation message")
t("AcceptEvent", "Accept a meeting invitation, optionally with a note.", eventId="*Event ID", comment="Note",
  sendResponse=("boolean", "Notify the organizer"))
t("DeclineEvent", "Decline a meeting invitation and optionally propose a new time.", eventId="*Event ID", comment="Note",
  proposedNewTime=("object", "Proposed start and end"))
t("FindMeetingTimes", "Suggest meeting times based on attendees' availability and room availability.",
  attendees=("array", "*Attendee emails"), meetingDuration="*ISO 8601 duration, e.g. PT30M", timeConstraint=("object", "Window"))
t("GetSchedule", "Get free/busy availability for users, rooms or distribution lists.", schedules=("array", "*Emails"),
  startTime="*Start", endTime="*End")
t("ListContacts", "List contacts in the user's address book.", filter="OData filter", top=("integer", "Page size"))
t("CreateContact", "Add a contact with name, emails, phone numbers and company.", givenName="*First name",
  surname="Last name", emailAddresses=("array", "Emails"), businessPhones=("array", "Phones"), companyName="Company")
t("ListTodoTasks", "List tasks in a Microsoft To Do list (including flagged emails).", listId="*Task list ID",
  status=("string", "Status", ["notStarted", "inProgress", "completed"]))
t("CreateTodoTask", "Add a task to a To Do list with a due date and reminder.", listId="*Task list ID", title="*Title",
  dueDateTime="Due", reminderDateTime="Reminder")
t("ListRooms", "List the meeting rooms in the organization with capacity and building.", building="Building filter")
t("GetMailTips", "Check mail tips before sending, such as a recipient's auto-reply or a full mailbox.",
  emailAddresses=("array", "*Recipients"))
TOOLS += ol.tools
