#!/usr/bin/env python3
"""Writes queries.json from the hand-written list below.

Each line is "TARGETS | query". TARGETS is a space-separated list of group aliases (defined in
GROUPS) and/or literal "server/name" ids. The paraphrase flag is computed with the same word rule
the checker uses, so it describes each query truthfully.
"""
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check", os.path.join(HERE, "..", "check.py"))
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

GW = "google_workspace/"
GROUPS = {
    # mail
    "SEND": ["gmail/send_email", "outlook/sendMail"],
    "REPLY": ["gmail/reply_to_email", "outlook/replyToMessage"],
    "MSEARCH": ["gmail/search_emails", "outlook/searchMessages"],
    "INBOX": ["gmail/list_recent_emails", "outlook/listMessages"],
    "MGET": ["gmail/get_email", "outlook/getMessage"],
    "MDEL": ["gmail/trash_email", "outlook/deleteMessage"],
    # calendar
    "EVNEW": ["gcal/create_event", "gcal/quick_add", "outlook/createEvent"],
    "AGENDA": ["gcal/list_events", "outlook/listEvents"],
    "EVUPD": ["gcal/update_event", "outlook/updateEvent"],
    "EVDEL": ["gcal/delete_event", "outlook/cancelEvent"],
    "RSVP": ["gcal/rsvp_event", "outlook/respondToEvent"],
    "FREE": ["gcal/free_busy_query", "outlook/findMeetingTimes"],
    # chat
    "POST": ["slack/slack_post_message", "msteams/sendChannelMessage"],
    "DM": ["slack/slack_send_dm", "msteams/sendChatMessage"],
    "CHLIST": ["slack/slack_list_channels", "msteams/listChannels"],
    "CHNEW": ["slack/slack_create_channel", "msteams/createChannel"],
    "CHADD": ["slack/slack_invite_users", "msteams/addTeamMember"],
    "HIST": ["slack/slack_get_channel_history", "msteams/getChannelMessages"],
    "STATUS": ["slack/slack_set_status", "msteams/setPresence"],
    # meetings
    "VNEW": ["zoom/meeting_create", "msteams/createOnlineMeeting"],
    "TRANS": ["zoom/recording_get_transcript", "msteams/getMeetingTranscript"],
    # docs
    "DOCNEW": ["notion/notion-create-page", GW + "docs_create_document"],
    "DOCADD": ["notion/notion-append-blocks", GW + "docs_insert_text"],
    "DOCGET": ["notion/notion-get-page", GW + "docs_get_document"],
    # files
    "FSEARCH": [GW + "drive_search_files", "dropbox/files_search"],
    "FLIST": [GW + "drive_list_folder", "dropbox/files_list_folder"],
    "FUP": [GW + "drive_upload_file", "dropbox/files_upload"],
    "FDOWN": [GW + "drive_download_file", "dropbox/files_download"],
    "FMOVE": [GW + "drive_move_file", "dropbox/files_move"],
    "FDEL": [GW + "drive_delete_file", "dropbox/files_delete"],
    "LINK": [GW + "drive_create_link", "dropbox/sharing_create_shared_link"],
    "UNLINK": [GW + "drive_remove_permission", "dropbox/sharing_revoke_shared_link"],
    "DIRSHARE": [GW + "drive_share_file", "dropbox/sharing_add_folder_member"],
    # tasks
    "TNEW": ["trello/createCard", "asana/asana_create_task"],
    "TUPD": ["trello/updateCard", "asana/asana_update_task"],
    "TASSIGN": ["trello/assignMember", "asana/asana_update_task"],
    "TGONE": ["trello/archiveCard", "asana/asana_delete_task"],
    "TCOMMENT": ["trello/addComment", "asana/asana_add_comment"],
    "TSTEPS": ["trello/addChecklist", "asana/asana_add_subtask"],
    "TSEARCH": ["trello/searchCards", "asana/asana_search_tasks"],
    "PROJLIST": ["trello/getBoards", "asana/asana_list_projects"],
}

SRC = r"""
# ------------------------------------------------------------------ email: send
SEND | shoot Priya a quick note saying the contract is signed
SEND | let the landlord know in writing that rent will be two days late this month
SEND | write to hr@acme.com asking how many vacation days I have left
SEND | drop the whole design crew a line with the launch date, subject "We ship June 3"
SEND | can u mesage my accountant that the reciepts are coming tomorow
SEND | send an email to the board with the Q3 summary
gmail/send_email | from my personal gmail, drop the tax advisor a line with the W-2 pdf included
gmail/send_email | use Gmail to tell grandma we land at 6pm Saturday
outlook/sendMail | from my work Outlook, tell the vendor we're pushing delivery to May, mark it high importance
outlook/sendMail | send mail via outlook to ops@corp.com about the server room door
# ------------------------------------------------------------------ email: reply
REPLY | answer Tom's question in that budget thread: we go with option B
REPLY | write back to everyone on the invoice chain that it's been paid
REPLY | get back to the recruiter, tell her Thursday at 2 works for me
REPLY | reply to the last email from Sarah saying thanks
gmail/reply_to_email | in Gmail, respond to the school newsletter thread and say Lily will attend
outlook/replyToMessage | on Outlook, answer all on the note from legal: looks good, approved
# ------------------------------------------------------------------ email: forward
gmail/forward_email | pass the airline receipt along to expenses@company.com
gmail/forward_email | send that Acme invoice on to my bookkeeper with "for your records" on top
gmail/forward_email | bounce the hotel confirmation over to my wife
gmail/forward_email | forward the conference confirmation email to Jill
# ------------------------------------------------------------------ email: search
MSEARCH | dig up the mail where Lena sent over the signed NDA
MSEARCH | anything from the bank about my card in the last month? look through my mailbox
MSEARCH | I need that note from the notary with a pdf, it was sometime in march
MSEARCH | which mails mention the purchase order 4471
MSEARCH | search my email for "offer letter"
gmail/search_emails | in gmail, find everything from noreply@github.com before June
gmail/search_emails | gmail: hunt for mails with attachments bigger than 10MB from last year
outlook/searchMessages | hunt through my Outlook for the PO number 4471
outlook/searchMessages | look across all my outlook folders for anything the auditors wrote about "accruals"
# ------------------------------------------------------------------ email: inbox listing
INBOX | what's new in my inbox?
INBOX | show me the ten latest unread mails
INBOX | anything landed in the mailbox in the past hour?
INBOX | list my recent emails
gmail/list_recent_emails | catch me up on the gmail inbox, just the newest handful
gmail/list_recent_emails | top 5 unopened things in gmail right now
outlook/listMessages | show what's sitting in my Outlook Sent Items
outlook/listMessages | in Outlook, what unread stuff is in the Inbox folder
# ------------------------------------------------------------------ email: read one
MGET | pull up the full text of mail 18c9f, attachments included
MGET | read me the whole thing the CFO wrote this morning, not just the preview
MGET | get the email with id abc123
gmail/get_email | in gmail, open the note from the insurer and show me all of it
outlook/getMessage | Outlook: what exactly did the landlord say, show the full body
# ------------------------------------------------------------------ email: drafts, labels, archive, trash, read state
gmail/create_draft | prepare a reply to the angry customer but don't hit go, I want to review it
gmail/create_draft | write up a polite no to the wedding invite and leave it unsent so I can check it
gmail/create_draft | put together a note to the team about the offsite and park it in my gmail for later
gmail/create_draft | create a draft email to the landlord
gmail/modify_labels | star the email from the bank so I remember it
gmail/modify_labels | tag the Acme thread as 'Clients' in gmail
gmail/modify_labels | put the "receipts" tag on that Uber mail and take off "inbox-zero"
gmail/archive_email | get that newsletter out of my inbox but don't throw it away
gmail/archive_email | clear the shipping notice from the gmail inbox, keep it in All Mail
gmail/archive_email | tuck away the thread from Coursera so it's off my main view
MDEL | bin the sketchy note from "Prince Abdul"
MDEL | get rid of that phishing mail entirely
MDEL | delete the email from the recruiter
gmail/trash_email | chuck the Groupon promo in gmail into the bin
outlook/deleteMessage | wipe that Outlook mail from the spammy recruiter
gmail/mark_as_read | I've seen all the LinkedIn notifications, clear their bold unread state
gmail/mark_as_read | flip those three gmail threads back to unopened so I deal with them later
gmail/mark_as_read | make all the newsletter mails in gmail show as opened
# ------------------------------------------------------------------ email: filters, attachments
gmail/create_filter | from now on automatically tag anything from @stripe.com as Billing
gmail/create_filter | make a rule so mails from my ex skip the inbox
gmail/create_filter | whenever something comes in with "unsubscribe" in the subject, archive it automatically
gmail/download_attachment | save the PDF that Kim mailed me onto my laptop
gmail/download_attachment | grab the spreadsheet out of the supplier's mail and put it in ~/inbox-files
gmail/download_attachment | pull the zip the client sent by gmail down to disk
# ------------------------------------------------------------------ outlook-only mail features
outlook/moveMessage | shift the Outlook note from Dana into the 'Taxes 2024' folder
outlook/moveMessage | that outlook mail is junk, toss it into the Junk Email folder
outlook/moveMessage | file this Outlook conversation under Projects/Orion
outlook/flagMessage | in Outlook, mark the contract mail for follow-up by Friday
outlook/flagMessage | remind me to come back to this Outlook thread next week with a follow-up marker
outlook/flagMessage | flag that message from finance
outlook/setAutomaticReplies | I'm on holiday from the 3rd to the 14th, have my mailbox tell people I'm away
outlook/setAutomaticReplies | turn on out-of-office: parental leave until September, contact Joe meanwhile
outlook/setAutomaticReplies | switch off the vacation auto-responder, I'm back
outlook/setAutomaticReplies | set automatic replies while I'm at the conference next week
# ------------------------------------------------------------------ calendar: new events
EVNEW | block out Friday 2-4pm on my calendar for "deep work"
EVNEW | put dentist Thursday at 3 on my calendar
EVNEW | book a 1:1 with Marcus next Tuesday at 10 and invite him
EVNEW | every Monday at 9, weekly standup on the team calendar, starting next week
EVNEW | I've got a haircut saturday 11am, pls remember it in my schedule
EVNEW | create an event for the product demo on March 3
gcal/create_event gcal/quick_add | on Google Calendar, pencil in lunch with Ana on the 12th at noon
gcal/create_event gcal/quick_add | google cal: dinner at Nonna's, 7pm Sunday, bring wine in the notes
outlook/createEvent | in my Outlook calendar, hold 90 minutes Wednesday afternoon for the budget review with finance
outlook/createEvent | invite the whole sales team to a kickoff in Outlook, conf room B, Monday 9-10
gcal/quick_add | Google Calendar: just parse this sentence and make an entry from it: 'Coffee with Raj Fri 8:30'
gcal/quick_add | throw "yoga tomorrow 7am" onto my google calendar exactly as I typed it
# ------------------------------------------------------------------ calendar: agenda
AGENDA | what do I have on the calendar tomorrow?
AGENDA | am I booked solid on Thursday? walk me through my day
AGENDA | what does next week look like for me, appointment-wise
AGENDA | how packed is my friday
AGENDA | list my events for today
gcal/list_events | google calendar: everything between May 1 and May 7
outlook/listEvents | pull my Outlook agenda for the rest of the week
gcal/get_event | who has said yes to the Friday offsite so far? show the guest replies on google calendar
gcal/get_event | give me the full details of the board review appointment on my google calendar (id evt_88)
gcal/get_event | get event evt_12 from gcal
gcal/search_events | when is my next dentist appointment in google calendar? look it up by name
gcal/search_events | find every calendar entry mentioning "Orion" on google calendar
gcal/search_events | search events for "retro"
# ------------------------------------------------------------------ calendar: change, cancel, reply
EVUPD | push the design review back an hour
EVUPD | move Thursday's check-in with Lou to Friday, same time
EVUPD | the offsite moved to room 12 - fix the location on the invite
EVUPD | update the event time to 4pm
gcal/update_event | google cal: rename the 'sync' slot to 'Roadmap planning' and add Priya as a guest
outlook/updateEvent | Outlook: shift the vendor call to room 4B and make it start at 3
EVDEL | scrap the Friday team lunch from the calendar and let people know
EVDEL | call off tomorrow's 1:1 with Sam, something came up
EVDEL | delete the event called Offsite
gcal/delete_event | drop the "gym" block from my Google Calendar next Monday
outlook/cancelEvent | Outlook: kill the weekly vendor sync I organize, tell attendees it's no longer needed
RSVP | say yes to the all-hands invite
RSVP | tell the organizer I can't make the Thursday workshop
RSVP | decline the invite for the 5pm farewell drinks, politely
gcal/rsvp_event | mark me as 'maybe' for the Friday drinks invite on Google Calendar
outlook/respondToEvent | accept the Outlook invitation from Legal for Tuesday
outlook/respondToEvent | outlook: tentatively accept the budget kickoff, note that I may be 10 min late
# ------------------------------------------------------------------ calendar: availability, calendars
FREE | when are Ana, Bo and I all open for 30 minutes this week?
FREE | locate a slot where the whole leadership team is available Thursday
FREE | check whether Kim is busy tomorrow afternoon
FREE | need a common gap in everyone's schedule for a 1-hour retro next week
gcal/free_busy_query | google calendar: show the blocked-off intervals for raj@ and me next Monday
outlook/findMeetingTimes | Outlook, suggest some 1-hour windows when the four of us could get together next week
outlook/findMeetingTimes | outlook: propose times for a 45 min chat with the auditors and a room
gcal/list_calendars | which agendas are shared with me in Google? give me their ids
gcal/list_calendars | show all the google calendars I'm subscribed to
gcal/list_calendars | what's the id of the family calendar on my Google account?
# ------------------------------------------------------------------ chat: posting
POST | tell #general that the office is closed Monday
POST | announce in the engineering room that the deploy freeze starts at 5
POST | let the marketing group chat room know the assets are ready for review
POST | post a message in the dev channel
slack/slack_post_message | Slack: let #sales know we hit quota
slack/slack_post_message | answer under the outage announcement in #ops that the fix is live, keep it threaded
msteams/sendChannelMessage | on Teams, write in Finance > General that invoices are due Friday
msteams/sendChannelMessage | drop a heads-up in the Teams Engineering > Releases room about tonight's maintenance
DM | ping Jordan privately and ask if he's free for lunch
DM | quietly ask Mei one-on-one whether she has the slides
DM | whisper to my manager that I'll be 10 min late
DM | send a direct message to Lisa
slack/slack_send_dm | slack a private note to @raj saying the build is green
slack/slack_send_dm | on our workspace app, privately nudge Omar about the invoice... it's Slack
msteams/sendChatMessage | on Teams, privately tell Ana the numbers look off
msteams/sendChatMessage | start a Teams chat with Ana and Bo about the offsite
slack/slack_schedule_message | post "standup in 5" to #team tomorrow at 8:55, not now
slack/slack_schedule_message | have the timesheet reminder go out in #ops on Friday at 4pm
slack/slack_schedule_message | queue up an announcement for #all, Monday morning 9am
slack/slack_schedule_message | schedule a slack message for later
# ------------------------------------------------------------------ chat: rooms and people
CHLIST | what rooms exist in our workspace chat?
CHLIST | which channels are there for us
slack/slack_list_channels | give me every public and private slack channel we're in
msteams/listChannels | in the Sales team on Teams, what sub-spaces are there?
CHNEW | spin up a new room called #proj-orion for the launch
CHNEW | make a private space for the hiring committee in our chat
slack/slack_create_channel | create a slack channel #incident-42
msteams/createChannel | add a private channel named "Budget" to the Finance team in Teams
CHADD | bring Omar and Li into #design
CHADD | get the new intern into the engineering group so they can see the conversations
slack/slack_invite_users | loop Carla into the #billing room on Slack
msteams/addTeamMember | make jo@corp.com an owner of the Marketing team in Teams
slack/slack_archive_channel | #old-launch is dead, freeze it so it's read-only and hidden
slack/slack_archive_channel | shut down the #temp-hackathon room, we're done with it
slack/slack_archive_channel | archive the slack channel #2019-offsite
HIST | what have people been saying in #support this morning?
HIST | catch me up on the last 50 posts in the design room
slack/slack_get_channel_history | summarize today's chatter in #random on Slack
msteams/getChannelMessages | what was discussed in the Teams Engineering > Releases space lately
slack/slack_get_thread_replies | show the whole conversation underneath Ana's question about the outage in #ops
slack/slack_get_thread_replies | what did people answer to the deploy post? read everything nested under it
slack/slack_get_thread_replies | get thread replies for ts 1712.33 in slack
slack/slack_search_messages | somebody posted the VPN setup guide in chat a while back, dig it up
slack/slack_search_messages | find where Bo mentioned "pricing" in any chat room last month
slack/slack_search_messages | look through the workspace chatter for mentions of the Q4 roadmap
slack/slack_add_reaction | thumbs-up Jen's announcement in #general
slack/slack_add_reaction | drop a :tada: on the release post
slack/slack_add_reaction | put a checkmark emoji on that request so they know I saw it
STATUS | show me as away in chat, I'm grabbing lunch
STATUS | go do-not-disturb for an hour, heads down
STATUS | let coworkers see I'm out sick today in the chat app
slack/slack_set_status | put a palm tree and "on vacation till Monday" as my Slack blurb
msteams/setPresence | make me appear Busy on Teams until 3
msteams/setPresence | Teams: show me as be-right-back for 15 minutes
slack/slack_upload_file | share the deck.pdf into #sales with a short note
slack/slack_upload_file | post the screenshot from my desktop into the bugs room
slack/slack_upload_file | drop report.xlsx into #finance on slack
slack/slack_find_user_by_email | who is ana@acme.io in our workspace chat, and what's her timezone?
slack/slack_find_user_by_email | get me the member id for tom@corp.com on slack
msteams/listChats | show my recent Teams conversations with people
msteams/listChats | which group conversations have I had on Teams lately?
msteams/listTeams | which workspaces am I a member of in Microsoft's collaboration app?
msteams/listTeams | what teams am I in on MS Teams
# ------------------------------------------------------------------ meetings
VNEW | set up a video call with the client for Thursday 2pm and give me the join URL
VNEW | I need a call URL for 4pm today, 30 minutes
VNEW | spin up an instant video room right now so we can talk face to face
VNEW | create a meeting link for the interview
zoom/meeting_create | book a zoom for Monday 10am called Sprint Review with a waiting room
zoom/meeting_create | zoom call every tuesday at 8 for the running club, recurring
msteams/createOnlineMeeting | get me a Teams call URL for the vendor pitch Friday 11-12
msteams/createOnlineMeeting | Teams: video session with the auditors on the 9th, let everyone skip the lobby
zoom/meeting_list | what zooms do I have coming up?
zoom/meeting_list | which of my video calls are live right now on Zoom
zoom/meeting_list | list upcoming zoom meetings
zoom/meeting_get | what's the passcode for zoom 834 2231 9910?
zoom/meeting_get | give me the join URL for my 3pm zoom
zoom/meeting_update | push the zoom with the investors to 45 minutes instead of 30
zoom/meeting_update | rename my recurring zoom to "Weekly Ops"
zoom/meeting_delete | scrap the zoom for Friday and tell registrants
zoom/meeting_delete | remove zoom session 8123 from my schedule for good
zoom/meeting_registrant_add | sign up kim@x.org for the zoom info session
zoom/meeting_registrant_add | enroll Dave Stone (dave@corp.com) in the sign-up-only zoom 9911
zoom/participants_list | who showed up to yesterday's zoom and how long did they stay?
zoom/participants_list | attendance report for the all-hands zoom last week
zoom/recording_list | what zoom cloud videos do I have saved from March?
zoom/recording_list | find the saved video of last Tuesday's zoom
zoom/recording_list | list zoom cloud recordings for this year
TRANS | I want a written account of what was said in this morning's call
TRANS | I missed the sync, pull the text of who said what
zoom/recording_get_transcript | the zoom customer interview from Monday, grab its captions as text
msteams/getMeetingTranscript | Teams call with legal yesterday: fetch the speaker-by-speaker text
zoom/recording_delete | the zoom cloud is full, trash the saved video of the March 2 call
zoom/recording_delete | permanently erase the HR interview video stored on zoom
zoom/webinar_create | set up a big online broadcast on zoom for 500 people with panelists, June 4
zoom/webinar_create | host a one-to-many livestream-style zoom session with sign-up for our customers
zoom/webinar_create | zoom webinar for the product launch next month
# ------------------------------------------------------------------ wiki / notes (notion)
notion/notion-search | look through the wiki for our parental leave policy
notion/notion-search | find the wiki entry about expense reimbursement
notion/notion-search | where in Notion did we write down the onboarding checklist?
notion/notion-search | is there already a note somewhere in our knowledge base on SSO setup?
notion/notion-get-page | open the "Q3 OKRs" wiki entry and read it to me
notion/notion-get-page | what does the handbook's remote work section say in the wiki?
notion/notion-create-page | in the wiki under Engineering, add an entry called "On-call guide" with these steps
notion/notion-create-page | jot a new note in my notebook space: gift ideas for Dad
notion/notion-create-page | create a notion page for the trip itinerary
DOCNEW | spin up a fresh writeup titled "Postmortem: login outage"
DOCNEW | start a blank write-up for the kickoff notes
google_workspace/docs_create_document | make a Google Doc titled "Speech draft" with this opening paragraph
google_workspace/docs_create_document | new google text file called "Cover letter - Stripe" in my Jobs folder
DOCADD | tack these three bullet points onto the end of the retro notes
notion/notion-append-blocks | add a packing to-do list at the bottom of my wiki entry for the trip
notion/notion-append-blocks | notion: append today's standup notes to the Daily log page
google_workspace/docs_insert_text | put this paragraph at the very end of the Google doc "Proposal"
google_workspace/docs_insert_text | stick a disclaimer line right after the title in my google write-up
notion/notion-update-page | change the status of the "Website relaunch" wiki entry to Done
notion/notion-update-page | set the due date property on the roadmap item in Notion to June 30
notion/notion-update-page | swap the emoji on the team home in the wiki to a rocket
notion/notion-query-database | which rows in the content calendar table are still In Review?
notion/notion-query-database | pull every entry in the Notion bug tracker where priority is high
notion/notion-query-database | from the reading list table in the wiki, show the unread books sorted by date
notion/notion-create-database | build a table in the wiki to track vendors with name, contact, renewal date columns
notion/notion-create-database | set up a tracker table for job applicants inside the Hiring area of our wiki
notion/notion-add-database-row | log a new entry in the wiki's reading list table: "Deep Work", status to-read
notion/notion-add-database-row | add Acme Corp as a row in the vendor tracker table in Notion
notion/notion-add-database-row | new line item in the wiki's applicants tracker: Maria Lopez, stage phone screen
notion/notion-add-comment | leave a remark on the wiki's pricing section asking where the numbers come from
notion/notion-add-comment | reply in the discussion on the Notion spec that I agree
notion/notion-add-comment | @Ben on the launch plan wiki entry: can you double-check the dates?
notion/notion-list-comments | what feedback have people left on the launch plan wiki entry?
notion/notion-list-comments | show open discussions on the design spec in the wiki
notion/notion-archive-page | trash the outdated 2021 holiday policy in the wiki
notion/notion-archive-page | bring back the wiki entry I binned yesterday
notion/notion-move-page | relocate the "Interview rubric" wiki entry under the Hiring section
notion/notion-move-page | nest the API notes inside the Engineering parent in the wiki
# ------------------------------------------------------------------ google docs
DOCGET | open the Q3 plan writeup and summarize it
google_workspace/docs_get_document | read me the google write-up at this URL and summarize it
google_workspace/docs_get_document | what does the "Vendor terms" Google Doc say about payment?
google_workspace/docs_replace_text | in the contract google write-up, swap every "Acme Inc" for "Acme LLC"
google_workspace/docs_replace_text | change all mentions of 2023 to 2024 in the proposal in Google Docs
google_workspace/docs_replace_text | the client is now called Northwind, fix the old name throughout that google writeup
# ------------------------------------------------------------------ files: find, browse, transfer
FSEARCH | where's the signed lease PDF in my cloud storage?
FSEARCH | hunt down the logo artwork somewhere in our online storage
FSEARCH | I saved a spreadsheet called "headcount" somewhere in the cloud, where is it
google_workspace/drive_search_files | in my Google cloud storage, find anything called invoice changed this month
dropbox/files_search | find the wedding photos in Dropbox
dropbox/files_search | dropbox: any jpgs named "passport" in there?
FLIST | what's inside the Clients directory in cloud storage?
FLIST | show me what's in the root of my online storage
google_workspace/drive_list_folder | show the contents of the Marketing folder in Google Drive
dropbox/files_list_folder | everything under /Taxes in Dropbox, including subdirectories
FUP | put report.pdf from my desktop into the cloud storage
FUP | back up ~/notes.txt to my online storage
google_workspace/drive_upload_file | push budget.xlsx up to my Google storage and convert it to a Sheet
dropbox/files_upload | copy logo.png into /Brand on Dropbox
dropbox/files_upload | put the scanned passport into dropbox, overwrite the old one
FDOWN | pull the Q2 deck out of cloud storage onto my laptop
FDOWN | I need a local copy of the contract pdf from my online storage
google_workspace/drive_download_file | grab the Google Sheet 'Roster' as a CSV onto my machine
dropbox/files_download | fetch /Contracts/nda.pdf from Dropbox to my desktop
google_workspace/drive_create_folder | make a new directory called "Tax 2024" in my Google storage
google_workspace/drive_create_folder | I want a place in Google Drive to keep all the wedding stuff, new folder please
google_workspace/drive_create_folder | organize: set up a "Clients/Acme" subdirectory in Google's cloud
FMOVE | relocate the old invoices into the Archive 2023 directory in cloud storage
FMOVE | rename "final_final_v3.docx" to "Proposal.docx" in my online storage
dropbox/files_move | shift /Inbox/scan.pdf to /Receipts on Dropbox
google_workspace/drive_move_file | in Google's storage, put the deck into the Sales directory
FDEL | clear out the duplicate video in my cloud storage, it's eating space
FDEL | erase the old draft psd from online storage
google_workspace/drive_delete_file | permanently wipe "old_passwords.txt" from Google Drive
dropbox/files_delete | remove /tmp/draft.psd from Dropbox
dropbox/files_restore | roll back budget.xlsx on Dropbox to yesterday's version
dropbox/files_restore | undelete the contract I accidentally binned in Dropbox
dropbox/files_restore | oops, I overwrote the logo in dropbox, get the previous revision back
# ------------------------------------------------------------------ files: access and links
google_workspace/drive_share_file | give ana@corp.com edit rights on the budget spreadsheet in Google
google_workspace/drive_share_file | make Raj a commenter on the strategy doc in google drive
google_workspace/drive_share_file | let my accountant view the tax return pdf in my google storage and email her about it
DIRSHARE | let my accountant view the taxes directory in my cloud storage
dropbox/sharing_add_folder_member | invite Jo as an editor of the /Clients directory on Dropbox
dropbox/sharing_add_folder_member | dropbox: give the two freelancers view access to /Brand
LINK | give me a URL anyone can open for the photo album, no login needed
LINK | I want to send the brochure to people outside the company without them needing an account, get a public URL
LINK | create a shareable link for the pitch deck
google_workspace/drive_create_link | make the Google slides viewable by anyone who has the URL
google_workspace/drive_create_link | open up the event flyer in Google storage so anyone in our org with the URL can comment
dropbox/sharing_create_shared_link | Dropbox: a public URL for /Portfolio that expires in a week
dropbox/sharing_create_shared_link | dropbox: password-protected URL for the raw footage
UNLINK | kill the public URL to the payroll file, it leaked
UNLINK | stop the open-access URL for the portfolio from working
dropbox/sharing_revoke_shared_link | disable that dropbox URL I gave the contractor
google_workspace/drive_remove_permission | take away Ben's access to the roadmap in Google storage
google_workspace/drive_remove_permission | Ben left the company, remove him from the Q3 forecast file in Drive
google_workspace/drive_list_permissions | who can see the salary sheet in Google right now?
google_workspace/drive_list_permissions | is the contract in my Google storage open to anyone with the URL, or just named people?
google_workspace/drive_list_permissions | audit access on the board deck in google drive
dropbox/file_requests_create | let the photographer drop the wedding pics into my Dropbox without an account
dropbox/file_requests_create | collect receipts from the whole team into /Expenses, they don't have Dropbox
dropbox/file_requests_create | I need candidates to hand in their portfolios into a dropbox directory by the 30th
# ------------------------------------------------------------------ spreadsheets
google_workspace/sheets_create_spreadsheet | start a new Google Sheet called "Trip costs" with columns Date, Item, Amount, Who
google_workspace/sheets_create_spreadsheet | make me a blank budget workbook with tabs Jan to Dec
google_workspace/sheets_create_spreadsheet | new expense tracker grid with headers Date, Vendor, Total
google_workspace/sheets_read_range | what numbers are in A1:F20 of the Budget tab?
google_workspace/sheets_read_range | pull the revenue column from the sales workbook
google_workspace/sheets_read_range | what did we make versus spend last quarter according to the P&L workbook?
google_workspace/sheets_read_range | read range B2:B50 from the roster sheet
google_workspace/sheets_write_range | put 4500 in cell C7 of the forecast
google_workspace/sheets_write_range | overwrite B2:B10 in the roster with these new phone numbers
google_workspace/sheets_write_range | fill D2 down to D20 with the formula =B2*C2 in the pricing workbook
google_workspace/sheets_append_rows | log today's run, 5k in 27 min, at the bottom of my fitness workbook
google_workspace/sheets_append_rows | tack these three new leads on after the last entry of the CRM grid
google_workspace/sheets_append_rows | add row: 2024-05-02, coffee, 4.50 to my expenses sheet
google_workspace/sheets_add_tab | give the budget workbook a fresh worksheet called "Q4"
google_workspace/sheets_add_tab | the forecast needs another page for 2025 numbers
google_workspace/sheets_format_cells | make the header row bold and freeze it in the budget workbook
google_workspace/sheets_format_cells | show column D as dollars and shade the totals row light gray
google_workspace/sheets_format_cells | percentages in column F of the KPI workbook look like decimals, display them as %
# ------------------------------------------------------------------ tasks / boards
TNEW | add a to-do for me: renew the domain by Friday
TNEW | make a ticket for fixing the broken signup button and put it on the backlog
TNEW | jot down "order new badges" as something I need to get done next week
TNEW | create a task to call the insurance company
trello/createCard | on the Trello board, new item in "To Do": refresh the pricing page
asana/asana_create_task | asana: new to-do "Draft Q3 OKRs" due Friday, assigned to me
TUPD | push the due date on the "website copy" to-do to next Monday
TUPD | rename the ticket "fix stuff" to "Fix checkout rounding bug"
trello/updateCard | change the description on the Trello card for the logo refresh
asana/asana_update_task | in asana, move the deadline of the vendor review to the 20th
TASSIGN | hand the invoice-reconciliation to-do over to Priya
TASSIGN | make Leo the owner of the onboarding ticket
trello/assignMember | put Sam on the "hero banner" trello item
trello/assignMember | assign member kate to the trello card
asana/asana_complete_task | asana: tick off "send contract" as finished
asana/asana_complete_task | check off the asana item for booking the venue
asana/asana_complete_task | oops, reopen the "ship v2" asana task, it's not actually done
TGONE | get rid of the duplicate "Call Bob" to-do
trello/archiveCard | that trello item for the old promo is obsolete, put it away
asana/asana_delete_task | permanently remove the test task in Asana
trello/moveCard | drag the "Hero banner" item from Doing to Done on the Trello board
trello/moveCard | shift the bug ticket into the QA column on trello
trello/moveCard | the copywriting is finished, slide it over to the Done lane in trello
TCOMMENT | leave a note on the checkout bug ticket saying it's fixed in staging
TCOMMENT | write "blocked on legal" on the contract to-do's activity feed
trello/addComment | Trello: note on the logo item that the client picked option 2
asana/asana_add_comment | asana: comment on the hiring task that the offer went out
TSTEPS | break the "launch" to-do into smaller steps: press kit, email blast, landing page
TSTEPS | split the moving-house ticket into sub-items: boxes, van, utilities
trello/addChecklist | put a packing checklist on the trello vacation card
asana/asana_add_subtask | under the asana task "Q3 report" add a subtask "collect numbers" for Mia
TSEARCH | find every ticket mentioning "refund"
TSEARCH | which to-dos about the website are still open?
trello/searchCards | look through my trello boards for anything labeled urgent
asana/asana_search_tasks | asana: search tasks due before Friday assigned to Leo
asana/asana_list_my_tasks | what do I personally still have to do this week at work?
asana/asana_list_my_tasks | asana: what's on my plate for the next 3 days
asana/asana_list_my_tasks | show my incomplete assignments, grouped by deadline
asana/asana_get_task | show everything about asana item 1203
asana/asana_get_task | give me the full details of the "Migrate DNS" to-do, including sub-items and followers
asana/asana_create_project | kick off a new project in Asana called Website 2.0 with a board layout
asana/asana_create_project | set up a fresh workstream "Office move" for the ops team in our work tracker
PROJLIST | which workstreams do we have going?
trello/getBoards | show all the kanban spaces I belong to on trello
asana/asana_list_projects | list asana projects including archived ones
asana/asana_create_status_update | flag the website relaunch as at risk for stakeholders with a short summary
asana/asana_create_status_update | mark the mobile app workstream as on track this week with a quick writeup for leadership
trello/getLists | what columns are on the Marketing trello board?
trello/getLists | show the stages on our trello kanban for hiring
trello/getCards | everything sitting on the Sprint 12 trello board, with due dates
trello/getCards | what's in the Doing column of the trello board
trello/createList | add a "Blocked" column to the trello board
trello/createList | new stage called QA on my trello kanban, put it after Doing
# ------------------------------------------------------------------ forms and surveys
typeform/create-form | build a customer satisfaction survey with a 1-10 rating and a comment box
typeform/create-form | whip up a quick RSVP questionnaire for the party: name, plus-one yes/no, dietary needs
typeform/create-form | create a typeform for event feedback
typeform/list-forms | which surveys do I have in typeform, and how many answers each?
typeform/list-forms | show me all my questionnaires
typeform/get-form | what questions are on the onboarding survey?
typeform/get-form | show the logic and settings of the NPS questionnaire
typeform/update-form | close the event survey to new submissions
typeform/update-form | add a question asking for a phone number to the signup questionnaire
typeform/delete-form | permanently get rid of the 2022 feedback survey and all its answers
typeform/delete-form | bin the test questionnaire
typeform/get-responses | what did people answer on the satisfaction survey since Monday?
typeform/get-responses | pull all completed submissions from the webinar feedback questionnaire
typeform/form-insights | how many people started the survey but bailed before finishing?
typeform/form-insights | completion rate and average time for the NPS questionnaire
typeform/form-insights | which question makes people drop off the most on the signup survey
# ------------------------------------------------------------------ whiteboards (miro)
miro/create_board | new whiteboard for the retro
miro/create_board | open a blank canvas for brainstorming the Q3 campaign
miro/list_boards | which whiteboards do I have on Miro?
miro/list_boards | find my miro canvas named "roadmap"
miro/get_board_items | what post-its are on the retro whiteboard?
miro/get_board_items | read out everything written on the brainstorm canvas
miro/add_sticky_note | put a yellow post-it saying "more onboarding emails" on the retro wall
miro/add_sticky_note | slap a post-it with "pricing?" on the brainstorm canvas
miro/add_shape | draw a blue rectangle labeled "API gateway" on the architecture whiteboard
miro/add_shape | put a circle with "Start" in it on the flow canvas
miro/connect_items | draw an arrow from "Login" to "Dashboard" on the flow whiteboard
miro/connect_items | link the two boxes with a line captioned "calls"
miro/add_frame | make a titled area called "Ideas" on the whiteboard to group stuff
miro/add_frame | carve out a section for each team on the planning canvas
miro/invite_to_board | let ana@x.com edit the retro whiteboard
miro/invite_to_board | give the client view-only access to our miro canvas
miro/copy_board | duplicate last sprint's retro whiteboard for this sprint
miro/copy_board | make a clone of the planning template canvas called "Q4 planning"
# ------------------------------------------------------------------ translation
deepl/translate_text | how do you say "we'll ship next week" in German?
deepl/translate_text | put this paragraph into formal French
deepl/translate_text | turn this Japanese customer message into English
deepl/translate_text | translate text to Spanish: "the invoice is attached"
deepl/translate_document | convert the whole contract.docx into Spanish, keep the layout
deepl/translate_document | I need the pptx deck in Italian, the entire file
deepl/detect_language | what tongue is this in: "Dziękuję bardzo"?
deepl/detect_language | figure out which lang this review is written in
deepl/list_languages | which target tongues does DeepL handle, and which allow a formal tone?
deepl/list_languages | can deepl do Ukrainian?
deepl/create_glossary | make sure "Kunde" always becomes "client", not "customer", in German to English output
deepl/create_glossary | set up a fixed term list EN to DE for our product names
deepl/get_usage | how many characters of our DeepL quota have we burned this month?
deepl/get_usage | are we close to the monthly limit on the machine translation service?
deepl/rephrase_text | polish this paragraph so it sounds more professional
deepl/rephrase_text | fix the grammar in my cover letter, keep it friendly
deepl/rephrase_text | make this email sound less clunky
# ------------------------------------------------------------------ extra: context-heavy, goals, multi-step
SEND | ugh, need to tell the caterer we're now 40 guests not 30, can you write to them
SEND | let Jamal know by mail the keys are under the mat
SEND | write to the client with the revised quote, then put a follow-up on my calendar for Friday
REPLY | she asked if we can do Zoom instead, tell her sure, in that same conversation
MSEARCH | did Amazon ever send me the return label? check my mail
INBOX | morning! anything urgent come in overnight in my mail?
gmail/forward_email | loop my assistant in by passing along the hotel confirmation mail
gmail/create_filter | stop the daily digest from clogging up my inbox, auto-skip it
gmail/modify_labels | move the lawyer's email under the Legal label in gmail
gmail/download_attachment | grab the invoice Kim mailed, save it locally, then put it in cloud storage
outlook/setAutomaticReplies | I'm off next week, make sure anyone writing in hears I'm away and who to contact instead
outlook/moveMessage | put the Outlook newsletter into my Reading folder
EVNEW | remind me with a calendar entry to renew my passport on June 1
AGENDA | do i have anything clashing w/ the dentist at 3 on wed?
FREE | what time works for me, Omar and Teresa to grab 20 mins before Friday
FREE | check when Ana and Raj are both open next week, then book the review
EVDEL | I'm sick, wipe the lunch with the vendor off my calendar for tomorrow
RSVP | nope out of the 7am breakfast invite
POST | heads up to the whole support crew room: the phone line is down
DM | can you nudge Tyler 1:1 that his expense report is overdue
HIST | I was out for a week, what did I miss in #eng-frontend?
STATUS | I'm heading to the dentist, let people know I'm unavailable on chat for 2 hours
CHADD | onboard the three new hires into the #welcome room
slack/slack_search_messages | what was the wifi password someone pasted in chat last week
slack/slack_add_reaction | eyes emoji on Paul's question so he knows I'm looking
slack/slack_find_user_by_email | what's Dana's handle on slack? her email is dana@x.com
msteams/listChats | Teams: who have I been talking to privately recently
msteams/getChannelMessages | read the latest in Teams' Product > Design space
VNEW | the client wants to hop on a quick video thing at 3, make a URL
TRANS | summarize the action items from yesterday's video call
zoom/participants_list | did the new hires actually attend the onboarding zoom?
zoom/meeting_get | what's the join info for the zoom with Nadia
zoom/meeting_update | move my 4pm zoom to 5
zoom/meeting_delete | nuke the zoom I set up by mistake
zoom/meeting_registrant_add | put my colleague Amir on the attendee sign-up list for the zoom training
notion/notion-search | we have a page on how to request a laptop, right? find it in the wiki
notion/notion-search | find the brand guidelines in the wiki and post the link in #design
notion/notion-get-page | read me what our wiki says in the "Travel policy" entry
DOCNEW | fresh writeup for onboarding new engineers, blank to start
DOCADD | add today's decisions to the end of the running notes
notion/notion-query-database | of all the content ideas in our wiki table, which ones are assigned to me and not started?
notion/notion-query-database | pull the signups table from the wiki and then copy them to the spreadsheet
notion/notion-add-database-row | track a new vendor in the wiki table: Globex, renewal Jan 2026
notion/notion-create-database | I want a habit tracker table in my notes workspace with date and checkbox columns
notion/notion-update-page | mark the "Hire designer" item in the wiki as In Progress
notion/notion-archive-page | that wiki entry about the 2019 offsite is obsolete, get it out of there
FUP | the signed contract scan is on my desktop, stash it in the cloud
FDOWN | I'm going offline on the plane, get the presentation from storage onto this laptop
FMOVE | tidy up: all the receipts in the root go into /Receipts in storage
FDEL | storage almost full, bin the old raw footage
FLIST | what did I put in the Projects directory in the cloud?
FSEARCH | find the Q3 deck in cloud storage and then mail it to Ana
DIRSHARE | give the new bookkeeper edit rights to the Finance directory in storage
LINK | my aunt has no accounts anywhere, make the baby pics in storage open to whoever has the address
google_workspace/drive_list_permissions | before I send it out, double-check nobody outside the company can open the pricing sheet in Google
UNLINK | the contractor's gig ended, cut off the URL access I gave them
dropbox/file_requests_create | get everyone's headshots for the website into dropbox /Headshots without them needing an account
dropbox/files_restore | I need the version of the proposal from last Tuesday back in dropbox
google_workspace/sheets_read_range | how much did we spend on travel in Q2? the numbers are in the finance workbook
google_workspace/sheets_write_range | correct the typo in cell A4 of the inventory workbook to "Widgets"
google_workspace/sheets_append_rows | each new lead should get its own line at the end of the leads workbook, start with Ana, ana@x.com
google_workspace/sheets_format_cells | the revenue numbers should look like money, with a $
google_workspace/sheets_add_tab | add a sheet called Summary to the budget workbook
google_workspace/sheets_create_spreadsheet | I'm planning a potluck, make a grid people can fill in: name, dish, allergies
TNEW | remind the team to update the pricing page, as a ticket on the board
TNEW | new bug: export button crashes on Safari, log it in our tracker
TUPD | the due date on the tax prep to-do is wrong, should be April 10
TSEARCH | is there already a ticket for the dark mode request?
TCOMMENT | tell everyone following the logo ticket that the client approved it, as a note on it
TSTEPS | the onboarding ticket needs a list of steps: laptop, accounts, buddy
asana/asana_complete_task | I finished the venue booking, tick it off in asana
trello/moveCard | bump the hiring item into Interviewing on trello
PROJLIST | what boards and projects does the team have?
typeform/get-responses | look up the NPS survey answers, then drop a summary in #product
typeform/get-responses | export all answers from the customer survey so I can chart them
typeform/create-form | I want to ask attendees three questions after the workshop, set that up
miro/add_sticky_note | jot "needs research" on a yellow square note on the whiteboard
miro/get_board_items | summarize what the team wrote on the retro canvas yesterday
miro/create_board | we need a shared space to sketch the user journey together visually
deepl/translate_text | what does "Feierabend" mean in English?
deepl/rephrase_text | rewrite this so it doesn't sound passive-aggressive
deepl/detect_language | is this Portuguese or Spanish?
deepl/translate_document | the supplier's manual is a 40-page PDF in Chinese, I need it in English as a file
deepl/get_usage | how much of the translation allowance is left
deepl/create_glossary | our brand names keep getting converted, lock them in so they stay as is in French output
"""

entries = []
for line in SRC.splitlines():
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    tpart, query = [x.strip() for x in line.split("|", 1)]
    targets = []
    for tok in tpart.split():
        for t in GROUPS.get(tok, [tok]):
            if t not in targets:
                targets.append(t)
    words = check.query_words(query)
    para = not any(check.clash(w, tok) for t in targets
                   for tok in check.name_tokens(t.split("/", 1)[1]) for w in words)
    entries.append({"query": query, "targets": targets, "paraphrase": para})

out = []
for i, e in enumerate(entries, 1):
    out.append({"id": f"wrk{i:03d}", "query": e["query"], "targets": e["targets"],
                "paraphrase": e["paraphrase"]})
with open(os.path.join(HERE, "queries.json"), "w") as fh:
    json.dump(out, fh, indent=1, ensure_ascii=False)
    fh.write("\n")

from collections import Counter
tools = json.load(open(os.path.join(HERE, "tools.json")))
known = {t["server"] + "/" + t["name"] for t in tools}
cnt = Counter(t for e in out for t in e["targets"])
n_para = sum(e["paraphrase"] for e in out)
print(f"{len(out)} queries, {n_para} paraphrase ({n_para / len(out):.0%})")
print("unknown:", [t for t in cnt if t not in known])
print("under 2:", sorted((cnt[t], t) for t in known if cnt[t] < 2))
