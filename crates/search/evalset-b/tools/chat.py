"""Slack (snake_case) and Discord (camelCase)."""
from _common import Server

sl = Server("slack")
t = sl.t
CH = "*Channel ID (C...) or name"
TS = "*Message timestamp (ts)"
t("post_message", "Post a message to a channel, DM or group DM. Accepts mrkdwn text or Block Kit blocks.",
  channel=CH, text="*Message text (mrkdwn)", blocks=("array", "Block Kit blocks"), unfurl_links=("boolean", "Expand link previews"))
t("reply_to_thread", "Reply in a message's thread, optionally also showing the reply in the channel.", channel=CH,
  thread_ts=TS, text="*Reply text", reply_broadcast=("boolean", "Also send to channel"))
t("schedule_message", "Schedule a message to be posted to a channel at a future time.", channel=CH, text="*Text",
  post_at=("integer", "*Unix time to post at"))
t("list_scheduled_messages", "List messages waiting to be posted later.", channel="Channel filter")
t("update_message", "Edit the text of a message the bot or user posted.", channel=CH, ts=TS, text="*New text")
t("delete_message", "Delete a message posted by the bot or user.", channel=CH, ts=TS)
t("get_channel_history", "Fetch recent messages from a channel, newest first, within an optional time range.",
  channel=CH, oldest="Start ts", latest="End ts", limit=("integer", "Max messages"))
t("get_thread_replies", "Fetch all replies in a message thread.", channel=CH, ts="*Parent message ts")
t("search_messages", "Search messages across the workspace with Slack modifiers (in:#channel, from:@user, before:, has:link).",
  query="*Search query", sort=("string", "Sort", ["score", "timestamp"]), count=("integer", "Results per page"))
t("search_files", "Search files shared in Slack by name or content.", query="*Query")
t("add_reaction", "Add an emoji reaction to a message.", channel=CH, timestamp=TS, name="*Emoji name without colons")
t("pin_message", "Pin a message to a channel's pinned items.", channel=CH, timestamp=TS)
t("list_pins", "List the items pinned in a channel.", channel=CH)
t("add_bookmark", "Add a link bookmark to the bar at the top of a channel.", channel_id=CH, title="*Title", link="*URL",
  emoji="Icon emoji")
t("list_channels", "List public and private channels in the workspace with topic, purpose and member count.",
  types="public_channel, private_channel, mpim, im", exclude_archived=("boolean", "Skip archived channels"),
  limit=("integer", "Page size"))
t("create_channel", "Create a public or private channel.", name="*Channel name (lowercase, no spaces)",
  is_private=("boolean", "Private channel"))
t("archive_channel", "Archive a channel so it is read-only and hidden from the sidebar.", channel=CH)
t("rename_channel", "Rename a channel.", channel=CH, name="*New name")
t("set_channel_topic", "Set the topic shown in a channel's header.", channel=CH, topic="*Topic text")
t("set_channel_purpose", "Set a channel's description (purpose).", channel=CH, purpose="*Purpose text")
t("invite_to_channel", "Invite one or more users to a channel.", channel=CH, users=("array", "*User IDs"))
t("kick_from_channel", "Remove a user from a channel.", channel=CH, user="*User ID")
t("join_channel", "Make the bot join a public channel so it can read and post there.", channel=CH)
t("list_users", "List workspace members with display names, titles and time zones.", limit=("integer", "Page size"))
t("get_user_profile", "Get a member's profile: name, title, phone, status and custom fields.", user="*User ID")
t("lookup_user_by_email", "Find a member from an email address.", email="*Email address")
t("get_user_presence", "Tell whether a member is active or away right now.", user="*User ID")
t("open_conversation", "Open (or resume) a direct message or group DM with users and return its channel ID.",
  users=("array", "*User IDs, up to 8"))
t("upload_file", "Upload a file or snippet and share it into channels with an initial comment.",
  channels=("array", "Channels to share to"), filename="*File name", content="Text content", initial_comment="Comment")
t("set_status", "Set the user's status text, emoji and expiry.", status_text="*Text", status_emoji="Emoji",
  status_expiration=("integer", "Unix time it clears"))
t("set_snooze", "Pause notifications (Do Not Disturb) for a number of minutes.", num_minutes=("integer", "*Minutes"))
t("add_reminder", "Create a reminder for yourself or another member, e.g. 'in 2 hours' or 'every Monday at 9am'.",
  text="*What to remind about", time="*When, natural language or Unix time", user="Who to remind (default: you)")
t("list_usergroups", "List user groups (handles like @oncall) with their members.", include_users=("boolean", "Include members"))
t("update_usergroup_members", "Replace the members of a user group, e.g. rotate who is in @oncall.", usergroup="*User group ID",
  users=("array", "*User IDs"))
t("get_permalink", "Get a shareable link to a specific message.", channel=CH, message_ts=TS)
t("mark_channel_read", "Move the read cursor in a channel to a message.", channel=CH, ts=TS)
TOOLS = sl.tools

dc = Server("discord")
t = dc.t
G = "*Guild (server) ID"
C = "*Channel ID"
t("sendMessage", "Send a message to a text channel, optionally with embeds and a reply reference.", channelId=C,
  content="*Message content", embeds=("array", "Embed objects"), replyTo="Message ID to reply to")
t("editMessage", "Edit a message the bot sent.", channelId=C, messageId="*Message ID", content="*New content")
t("deleteMessage", "Delete a message in a channel (needs Manage Messages for others' messages).", channelId=C,
  messageId="*Message ID", reason="Audit log reason")
t("bulkDeleteMessages", "Delete 2 to 100 messages younger than two weeks in one call, e.g. to clean up spam.",
  channelId=C, messageIds=("array", "*Message IDs"))
t("readMessages", "Read the most recent messages in a channel, or those before or after a message.", channelId=C,
  limit=("integer", "1-100"), before="Message ID", after="Message ID")
t("searchMessages", "Search a guild's messages by content, author, channel or attachment type.", guildId=G,
  content="Text", authorId="Author", channelId="Channel", has=("string", "Has", ["link", "embed", "file", "image", "video"]))
t("addReaction", "React to a message with a unicode or custom emoji.", channelId=C, messageId="*Message ID", emoji="*Emoji")
t("pinMessage", "Pin a message in a channel.", channelId=C, messageId="*Message ID")
t("createThread", "Start a thread from a message or as a standalone thread in a channel or forum.", channelId=C,
  name="*Thread name", messageId="Message to start from", autoArchiveMinutes=("integer", "Archive after inactivity"))
t("createForumPost", "Create a post (thread with a first message) in a forum channel with tags.", channelId=C,
  title="*Title", content="*Body", appliedTags=("array", "Tag IDs"))
t("listGuilds", "List the guilds (servers) the bot is in.")
t("getGuild", "Get a guild's name, owner, member count, features and boost level.", guildId=G)
t("listChannels", "List a guild's channels and categories.", guildId=G)
t("createChannel", "Create a text, voice, forum or announcement channel, optionally inside a category.", guildId=G,
  name="*Name", type=("string", "Type", ["text", "voice", "forum", "announcement", "stage", "category"]), parentId="Category ID",
  topic="Topic")
t("editChannel", "Change a channel's name, topic, slow-mode or NSFW flag.", channelId=C, name="Name", topic="Topic",
  rateLimitPerUser=("integer", "Slow-mode seconds"), nsfw=("boolean", "Age-restricted"))
t("deleteChannel", "Delete a channel or category.", channelId=C)
t("setChannelPermissions", "Allow or deny permissions for a role or member on a channel.", channelId=C,
  overwriteId="*Role or member ID", allow="Permission bitset to allow", deny="Permission bitset to deny")
t("createInvite", "Create an invite link to a channel with max age and max uses.", channelId=C, maxAge=("integer", "Seconds"),
  maxUses=("integer", "Uses"), temporary=("boolean", "Kick when they disconnect"))
t("listMembers", "List guild members with their roles and join dates.", guildId=G, limit=("integer", "Max members"))
t("getMember", "Get one member's nickname, roles and join date.", guildId=G, userId="*User ID")
t("kickMember", "Remove a member from the guild (they can rejoin with an invite).", guildId=G, userId="*User ID",
  reason="Reason")
t("banMember", "Ban a user from the guild and optionally delete their recent messages.", guildId=G, userId="*User ID",
  deleteMessageSeconds=("integer", "Seconds of messages to purge"), reason="Reason")
t("unbanMember", "Lift a ban.", guildId=G, userId="*User ID")
t("timeoutMember", "Time out a member so they cannot chat or join voice until a given time.", guildId=G, userId="*User ID",
  until="*ISO 8601 end time", reason="Reason")
t("listRoles", "List a guild's roles with colors, permissions and positions.", guildId=G)
t("createRole", "Create a role with a name, color, permissions and whether it is mentionable.", guildId=G, name="*Name",
  color=("integer", "RGB color"), permissions="Permission bitset", mentionable=("boolean", "Mentionable"))
t("addRoleToMember", "Give a member a role.", guildId=G, userId="*User ID", roleId="*Role ID")
t("removeRoleFromMember", "Take a role away from a member.", guildId=G, userId="*User ID", roleId="*Role ID")
t("createScheduledEvent", "Schedule a guild event in a voice or stage channel or at an external location.", guildId=G,
  name="*Name", startTime="*Start", entityType=("string", "*Where", ["stage", "voice", "external"]), location="External location")
t("createWebhook", "Create a webhook in a channel that external services can post to.", channelId=C, name="*Webhook name")
t("executeWebhook", "Post a message through a webhook URL with a custom username and avatar.", webhookUrl="*Webhook URL",
  content="*Content", username="Display name", avatarUrl="Avatar URL")
t("getAuditLog", "Read the guild's audit log: bans, kicks, role and channel changes, with who did them.", guildId=G,
  actionType=("integer", "Action type filter"), userId="Actor filter")
t("createEmoji", "Upload a custom emoji to the guild.", guildId=G, name="*Emoji name", image="*Base64 image data")
TOOLS += dc.tools
