"""PagerDuty (snake_case) and Twilio (camelCase): paging, on-call, SMS and voice."""
from _common import Server

pd = Server("pagerduty")
t = pd.t
INC = "*Incident ID"
t("list_incidents", "List incidents filtered by status, urgency, service, team or date range.",
  statuses=("array", "triggered, acknowledged, resolved"), urgencies=("array", "high, low"), service_ids=("array", "Services"),
  since="Start", until="End")
t("get_incident", "Get an incident with its service, assignees, urgency, priority and escalation level.", incident_id=INC)
t("create_incident", "Trigger a new incident on a service, optionally assigned to a user or escalation policy.",
  title="*Title", service_id="*Service ID", urgency=("string", "Urgency", ["high", "low"]), body="Details",
  escalation_policy_id="Escalation policy", assignee_ids=("array", "Users to assign"))
t("acknowledge_incident", "Acknowledge an incident so escalation stops while someone works on it.", incident_id=INC)
t("resolve_incident", "Resolve an incident, with an optional resolution note.", incident_id=INC, resolution="Resolution note")
t("reassign_incident", "Hand an incident to another user or escalation policy.", incident_id=INC,
  assignee_ids=("array", "Users"), escalation_policy_id="Escalation policy")
t("escalate_incident", "Escalate an incident to a higher level of its escalation policy.", incident_id=INC,
  escalation_level=("integer", "*Level"))
t("merge_incidents", "Merge duplicate incidents into one parent incident.", incident_id="*Parent incident",
  source_incident_ids=("array", "*Incidents to fold in"))
t("snooze_incident", "Snooze an acknowledged incident for a duration before it re-triggers.", incident_id=INC,
  duration=("integer", "*Seconds"))
t("set_incident_priority", "Set the priority (P1-P5) of an incident.", incident_id=INC, priority_id="*Priority ID")
t("add_incident_note", "Add a timeline note to an incident.", incident_id=INC, content="*Note text")
t("list_incident_notes", "List the notes on an incident's timeline.", incident_id=INC)
t("get_incident_log_entries", "Get the incident timeline: triggers, notifications sent, acknowledgements, escalations.",
  incident_id=INC)
t("list_incident_alerts", "List the alerts grouped into an incident.", incident_id=INC)
t("add_responders", "Request additional responders (users or escalation policies) to join an incident.", incident_id=INC,
  responder_ids=("array", "*Users or policies"), message="*Why they are needed")
t("post_status_update", "Send a status update to an incident's stakeholders and subscribers.", incident_id=INC,
  message="*Update text")
t("send_event", "Send an alert event (trigger, acknowledge, resolve) to a service through the Events API v2 routing key.",
  routing_key="*Integration key", event_action=("string", "*Action", ["trigger", "acknowledge", "resolve"]),
  summary="Summary", severity=("string", "Severity", ["critical", "error", "warning", "info"]), dedup_key="Dedup key")
t("list_oncalls", "Show who is on call now or in a window, per schedule and escalation policy.", schedule_ids=("array", "Schedules"),
  escalation_policy_ids=("array", "Policies"), since="Start", until="End")
t("list_schedules", "List on-call schedules.", query="Name filter")
t("get_schedule", "Get a schedule's layers and rendered shifts for a range.", schedule_id="*Schedule ID", since="Start", until="End")
t("create_schedule_override", "Put someone on call in place of the scheduled person for a period (a shift swap).",
  schedule_id="*Schedule ID", user_id="*Who covers", start="*Start", end="*End")
t("list_escalation_policies", "List escalation policies and their rules.", query="Name filter")
t("list_services", "List services with status, escalation policy and integrations.", query="Name filter")
t("get_service", "Get a service's settings: urgency rules, acknowledgement timeout and auto-resolve.", service_id="*Service ID")
t("create_maintenance_window", "Create a maintenance window that suppresses incidents on services for a period.",
  service_ids=("array", "*Services"), start_time="*Start", end_time="*End", description="Reason")
t("list_users", "List users with their roles, teams and contact methods.", query="Name or email")
t("list_teams", "List teams.", query="Name filter")
t("get_analytics_incidents", "Get incident metrics: counts, mean time to acknowledge and resolve, by service or team.",
  start="*Start", end="*End", service_ids=("array", "Services"), team_ids=("array", "Teams"))
t("list_change_events", "List recent change events (deploys, config changes) that may relate to incidents.",
  since="Start", until="End", service_ids=("array", "Services"))
t("run_response_play", "Run an incident workflow or response play on an incident, e.g. to start a bridge call.",
  incident_id=INC, workflow_id="*Workflow ID")
TOOLS = pd.tools

tw = Server("twilio", titles=True)
t = tw.t
PHONE = "E.164 phone number, e.g. +14155550100"
t("sendSms", "Send an SMS or MMS from one of your Twilio numbers or a messaging service.", to="*" + PHONE,
  body="*Message text", from_="Sender number", messagingServiceSid="Messaging service SID",
  mediaUrl=("array", "Media URLs for MMS"))
t("sendWhatsAppMessage", "Send a WhatsApp message, using an approved template outside the 24-hour window.",
  to="*WhatsApp number", body="Free-form text", contentSid="Template SID", contentVariables=("object", "Template variables"))
t("listMessages", "List sent and received messages, filtered by number and date.", to="To filter", from_="From filter",
  dateSentAfter="After date", pageSize=("integer", "Page size"))
t("getMessage", "Get a message's status (queued, sent, delivered, failed), error code and price.", messageSid="*Message SID")
t("cancelScheduledMessage", "Cancel a message scheduled for later sending.", messageSid="*Message SID")
t("makeCall", "Place an outbound voice call that plays TwiML or text-to-speech.", to="*" + PHONE, from_="*Caller ID number",
  twiml="TwiML instructions", say="Text to read out", record=("boolean", "Record the call"))
t("listCalls", "List calls with direction, status, duration and price.", status="Status filter", startTimeAfter="After",
  to="To filter")
t("getCall", "Get one call's details.", callSid="*Call SID")
t("hangupCall", "End an in-progress call.", callSid="*Call SID")
t("listRecordings", "List call recordings with duration and media URL.", callSid="Call filter", dateCreatedAfter="After")
t("getTranscription", "Get the text transcription of a call recording.", recordingSid="*Recording SID")
t("lookupPhoneNumber", "Validate a number and look up carrier, line type (mobile, landline, VoIP) and caller name.",
  phoneNumber="*Number", fields=("array", "line_type_intelligence, caller_name, sim_swap"))
t("searchAvailableNumbers", "Find phone numbers available to buy by country, area code or pattern.", countryCode="*ISO country",
  areaCode="Area code", contains="Digits pattern", smsEnabled=("boolean", "Must support SMS"))
t("buyPhoneNumber", "Purchase an available phone number and configure its webhooks.", phoneNumber="*Number to buy",
  smsUrl="Incoming SMS webhook", voiceUrl="Incoming call webhook")
t("listIncomingNumbers", "List the phone numbers on the account with their configured webhooks.")
t("updateIncomingNumber", "Change where an owned number sends incoming calls and texts.", phoneNumberSid="*Number SID",
  smsUrl="SMS webhook", voiceUrl="Voice webhook", friendlyName="Label")
t("releasePhoneNumber", "Give up an owned phone number.", phoneNumberSid="*Number SID")
t("startVerification", "Send a one-time verification code by SMS, voice, WhatsApp or email.", serviceSid="*Verify service SID",
  to="*Number or email", channel=("string", "*Channel", ["sms", "call", "whatsapp", "email"]))
t("checkVerification", "Check a one-time code a user entered.", serviceSid="*Verify service SID", to="*Number or email",
  code="*Code")
t("createMessagingService", "Create a messaging service that pools sender numbers and handles opt-outs.",
  friendlyName="*Name", inboundRequestUrl="Incoming webhook")
t("listConversations", "List Conversations (multi-channel threads) with state and participants.", state="State filter")
t("addConversationParticipant", "Add an SMS, WhatsApp or chat participant to a conversation.", conversationSid="*Conversation SID",
  address="SMS/WhatsApp address", identity="Chat identity")
t("getAccountBalance", "Get the account's current balance and currency.")
t("listUsageRecords", "List usage and cost by category (SMS, calls, numbers) for a period.", category="Category",
  startDate="Start", endDate="End")
t("createSubaccount", "Create a subaccount to separate usage for a customer or environment.", friendlyName="*Name")
t("listAlerts", "List debugger alerts (webhook errors, undelivered messages) with error codes.", logLevel="error or warning",
  startDate="Since")
t("addOptOut", "Opt a number out of messages from a messaging service.", messagingServiceSid="*Service", phoneNumber="*Number")
t("createConferenceCall", "Create a conference call and dial participants into it.", friendlyName="*Conference name",
  participants=("array", "*Numbers to dial"), from_="*Caller ID")
t("sendEmail", "Send a transactional email through SendGrid with optional dynamic template.", to="*Recipient",
  from_="*Sender", subject="Subject", html="HTML body", templateId="Dynamic template ID")
t("createStudioExecution", "Start a Studio flow (IVR or message flow) for a contact.", flowSid="*Flow SID", to="*Contact",
  from_="*Twilio number", parameters=("object", "Flow parameters"))
TOOLS += tw.tools
