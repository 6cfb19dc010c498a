#!/usr/bin/env python3
"""Writes tools.json: ~160 business-operations tool definitions in the MCP shape."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = []


def p(typ, desc, **extra):
    d = {"type": typ, "description": desc}
    d.update(extra)
    return d


def tool(server, name, desc, props=None, required=None):
    schema = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = required
    TOOLS.append({"server": server, "name": name, "description": desc, "inputSchema": schema})


S = "string"
I = "integer"
N = "number"
B = "boolean"
ARR_S = {"type": "array", "items": {"type": "string"}}
LINES = {"type": "array", "items": {"type": "object", "properties": {
    "description": {"type": "string"}, "quantity": {"type": "number"},
    "unit_price": {"type": "number"}, "account_code": {"type": "string"}}}}

# ---------------------------------------------------------------- hubspot (CRM)
H = "hubspot"
tool(H, "create_contact", "Create a new contact record in HubSpot CRM.", {
    "email": p(S, "Primary email address; used for de-duplication."),
    "firstname": p(S, "Given name"), "lastname": p(S, "Family name"),
    "phone": p(S, "Phone number in any format"),
    "company": p(S, "Company name as free text"),
    "lifecyclestage": p(S, "subscriber, lead, marketingqualifiedlead, opportunity, customer")}, ["email"])
tool(H, "update_contact", "Change properties on an existing contact, e.g. job title, owner or lifecycle stage.", {
    "contact_id": p(S, "HubSpot contact id"),
    "properties": p("object", "Map of property name to new value")}, ["contact_id", "properties"])
tool(H, "get_contact", "Fetch one contact by id, including its associated companies and deals.", {
    "contact_id": p(S, "HubSpot contact id"),
    "include_associations": p(B, "Return linked companies/deals too")}, ["contact_id"])
tool(H, "search_contacts", "Full-text search over contacts by name, email, phone or company. Returns up to `limit` matches.", {
    "query": p(S, "Search text"), "limit": p(I, "Max results, default 20")}, ["query"])
tool(H, "create_company", "Add a company (organization) record. HubSpot auto-enriches it when a domain is given.", {
    "name": p(S, "Company name"), "domain": p(S, "Website domain, e.g. acme.com"),
    "industry": p(S, "Industry label"), "numberofemployees": p(I, "Headcount")}, ["name"])
tool(H, "create_deal", "Open a new deal in a sales pipeline.", {
    "dealname": p(S, "Name of the deal"), "amount": p(N, "Expected value"),
    "pipeline": p(S, "Pipeline id, default 'default'"), "dealstage": p(S, "Stage id"),
    "closedate": p(S, "Expected close date, ISO 8601"),
    "contact_id": p(S, "Optional contact to associate")}, ["dealname", "dealstage"])
tool(H, "update_deal", "Update a deal's fields. Move it to another stage by setting dealstage; mark won/lost with the closedwon/closedlost stages.", {
    "deal_id": p(S, "Deal id"), "properties": p("object", "Fields to change, e.g. {\"dealstage\": \"closedwon\"}")},
    ["deal_id", "properties"])
tool(H, "list_deals", "List deals, optionally filtered by pipeline, stage or owner.", {
    "pipeline": p(S, "Pipeline id"), "dealstage": p(S, "Stage id"),
    "owner_id": p(S, "Deal owner user id"), "limit": p(I, "Page size")})
tool(H, "get_pipeline_stages", "Return the ordered stages of a deal or ticket pipeline with their ids and win probabilities.", {
    "pipeline_id": p(S, "Pipeline id"), "object_type": p(S, "deals or tickets")}, ["pipeline_id"])
tool(H, "create_note", "Attach a note to the timeline of a contact, company or deal.", {
    "object_type": p(S, "contact, company or deal"), "object_id": p(S, "Record id"),
    "body": p(S, "Note text; basic HTML allowed")}, ["object_type", "object_id", "body"])
tool(H, "create_task", "Create a to-do for a sales rep with a due date, optionally tied to a record. Shows up in the rep's task queue and sends a reminder.", {
    "title": p(S, "Task subject"), "due_date": p(S, "ISO 8601 due date"),
    "owner_id": p(S, "Assigned user"), "associated_object_id": p(S, "Contact/deal id"),
    "task_type": p(S, "CALL, EMAIL or TODO")}, ["title", "due_date"])
tool(H, "create_ticket", "Open a Service Hub ticket for a customer issue.", {
    "subject": p(S, "Short summary"), "content": p(S, "Details"),
    "hs_ticket_priority": p(S, "LOW, MEDIUM, HIGH"), "contact_id": p(S, "Reporter contact id")}, ["subject"])
tool(H, "associate_records", "Link two CRM records together (contact to company, deal to contact, etc.).", {
    "from_type": p(S, "Object type of source"), "from_id": p(S, "Source id"),
    "to_type": p(S, "Object type of target"), "to_id": p(S, "Target id")},
    ["from_type", "from_id", "to_type", "to_id"])

# ---------------------------------------------------------------- salesforce (CRM)
SF = "salesforce"
tool(SF, "sf_query", "Run a read-only SOQL query against the org and return matching rows. Use for ad-hoc reporting across any object.", {
    "soql": p(S, "SOQL statement, e.g. SELECT Id, Name FROM Account LIMIT 10")}, ["soql"])
tool(SF, "sf_search", "Global SOSL text search across Accounts, Contacts, Leads and Opportunities.", {
    "term": p(S, "Text to find"), "objects": dict(ARR_S, description="Restrict to these sObjects")}, ["term"])
tool(SF, "sf_lead_create", "Create a Lead.", {
    "FirstName": p(S, "First name"), "LastName": p(S, "Last name"),
    "Company": p(S, "Company (required by Salesforce)"), "Email": p(S, "Email"),
    "LeadSource": p(S, "Web, Event, Referral, ...")}, ["LastName", "Company"])
tool(SF, "sf_lead_convert", "Convert a qualified Lead into an Account, Contact and optionally an Opportunity.", {
    "lead_id": p(S, "Lead Id"), "create_opportunity": p(B, "Also create an Opportunity"),
    "opportunity_name": p(S, "Name for the new Opportunity")}, ["lead_id"])
tool(SF, "sf_opportunity_create", "Create an Opportunity on an Account with amount, stage and close date.", {
    "Name": p(S, "Opportunity name"), "AccountId": p(S, "Parent account"),
    "Amount": p(N, "Value"), "StageName": p(S, "Prospecting, Qualification, Proposal, Negotiation, Closed Won, Closed Lost"),
    "CloseDate": p(S, "YYYY-MM-DD")}, ["Name", "StageName", "CloseDate"])
tool(SF, "sf_opportunity_update", "Patch fields on an Opportunity (stage, amount, close date, next step).", {
    "opportunity_id": p(S, "Opportunity Id"), "fields": p("object", "Field/value map")}, ["opportunity_id", "fields"])
tool(SF, "sf_opportunity_list", "List open or closed Opportunities filtered by owner, stage or close-date window.", {
    "owner": p(S, "Owner user name or Id"), "stage": p(S, "StageName"),
    "close_after": p(S, "Date"), "close_before": p(S, "Date"), "is_closed": p(B, "Closed only")})
tool(SF, "sf_account_get", "Retrieve an Account with its contacts, open opportunities and recent cases.", {
    "account_id": p(S, "Account Id")}, ["account_id"])
tool(SF, "sf_case_create", "Open a support Case linked to a contact/account.", {
    "Subject": p(S, "Subject"), "Description": p(S, "Description"),
    "Priority": p(S, "Low, Medium, High"), "ContactId": p(S, "Contact Id"),
    "Origin": p(S, "Phone, Email, Web")}, ["Subject"])
tool(SF, "sf_case_update", "Change a Case's status, priority or owner, e.g. escalate or close it.", {
    "case_id": p(S, "Case Id"), "Status": p(S, "New, Working, Escalated, Closed"),
    "OwnerId": p(S, "User or queue Id"), "Priority": p(S, "Priority")}, ["case_id"])
tool(SF, "sf_task_log", "Record a completed call, email or meeting as an activity on a record.", {
    "what_id": p(S, "Related record Id"), "subject": p(S, "Activity subject"),
    "type": p(S, "Call, Email, Meeting"), "notes": p(S, "Comments")}, ["what_id", "subject"])
tool(SF, "sf_forecast_summary", "Summarise forecast for a period: commit, best case and pipeline amounts per rep.", {
    "period": p(S, "e.g. 2024-Q3"), "owner_id": p(S, "Limit to one rep or manager's team")}, ["period"])

# ---------------------------------------------------------------- quickbooks (accounting)
QB = "quickbooks"
tool(QB, "qb_create_invoice", "Create a sales invoice for a customer in QuickBooks Online. Saved as unsent; call qb_send_invoice to email it.", {
    "customer_id": p(S, "QuickBooks customer id"), "line_items": dict(LINES, description="Invoice lines"),
    "due_date": p(S, "YYYY-MM-DD"), "memo": p(S, "Message shown on the invoice")}, ["customer_id", "line_items"])
tool(QB, "qb_send_invoice", "Email an existing invoice to the customer (or to an override address).", {
    "invoice_id": p(S, "Invoice id"), "send_to": p(S, "Override email")}, ["invoice_id"])
tool(QB, "qb_get_invoice", "Get a single invoice with lines, balance and payment status.", {
    "invoice_id": p(S, "Invoice id or doc number")}, ["invoice_id"])
tool(QB, "qb_list_invoices", "List invoices. Filter by status (paid, unpaid, overdue), customer or date range.", {
    "status": p(S, "paid | unpaid | overdue | all"), "customer_id": p(S, "Customer id"),
    "from_date": p(S, "Start date"), "to_date": p(S, "End date")})
tool(QB, "qb_void_invoice", "Void an invoice: zeroes its amounts but keeps the record for audit.", {
    "invoice_id": p(S, "Invoice id")}, ["invoice_id"])
tool(QB, "qb_receive_payment", "Record money received from a customer and apply it to one or more open invoices.", {
    "customer_id": p(S, "Customer id"), "amount": p(N, "Total received"),
    "invoice_ids": dict(ARR_S, description="Invoices to apply to"),
    "payment_method": p(S, "cash, check, card, ach"), "deposit_account_id": p(S, "Account to deposit into")},
    ["customer_id", "amount"])
tool(QB, "qb_create_customer", "Add a customer to QuickBooks.", {
    "display_name": p(S, "Unique display name"), "email": p(S, "Billing email"),
    "billing_address": p("object", "Street, city, postal code, country")}, ["display_name"])
tool(QB, "qb_create_bill", "Enter a vendor bill (accounts payable) to pay later.", {
    "vendor_id": p(S, "Vendor id"), "line_items": dict(LINES, description="Expense lines"),
    "due_date": p(S, "YYYY-MM-DD"), "bill_number": p(S, "Vendor's reference")}, ["vendor_id", "line_items"])
tool(QB, "qb_pay_bill", "Pay one or more open vendor bills from a bank or credit card account.", {
    "bill_ids": dict(ARR_S, description="Bills to pay"), "bank_account_id": p(S, "Paying account"),
    "payment_date": p(S, "Date")}, ["bill_ids", "bank_account_id"])
tool(QB, "qb_profit_and_loss", "Profit and Loss report (income, expenses, net income) for a date range.", {
    "start_date": p(S, "Start"), "end_date": p(S, "End"),
    "accounting_method": p(S, "Cash or Accrual"), "summarize_by": p(S, "Total, Month, Quarter")}, ["start_date", "end_date"])
tool(QB, "qb_balance_sheet", "Balance sheet as of a date: assets, liabilities and equity.", {
    "as_of": p(S, "Report date")})
tool(QB, "qb_create_journal_entry", "Post a manual journal entry. Debits must equal credits.", {
    "txn_date": p(S, "Date"), "lines": {"type": "array", "description": "Each line: account_id, amount, posting_type Debit|Credit, memo",
                                         "items": {"type": "object"}}}, ["lines"])
tool(QB, "qb_list_accounts", "Chart of accounts, optionally filtered by type (Bank, Expense, Income, ...).", {
    "account_type": p(S, "Account type filter"), "active_only": p(B, "Hide inactive")})

# ---------------------------------------------------------------- xero (accounting)
X = "xero"
tool(X, "create-invoice", "Raise a sales invoice (ACCREC) to a contact. Status DRAFT unless 'AUTHORISED' is passed.", {
    "contact_id": p(S, "Xero ContactID"), "line_items": dict(LINES, description="Line items"),
    "due_date": p(S, "Due date"), "reference": p(S, "Reference shown to customer"),
    "status": p(S, "DRAFT | SUBMITTED | AUTHORISED")}, ["contact_id", "line_items"])
tool(X, "list-invoices", "Returns invoices for the organisation; filter by status, contact or modified date.", {
    "statuses": dict(ARR_S, description="DRAFT, AUTHORISED, PAID, VOIDED"),
    "contact_id": p(S, "ContactID"), "overdue_only": p(B, "Only invoices past due"),
    "modified_since": p(S, "ISO timestamp")})
tool(X, "email-invoice", "Send an approved invoice to the contact's email using the organisation's branding theme.", {
    "invoice_id": p(S, "InvoiceID")}, ["invoice_id"])
tool(X, "create-contact", "Create a Xero contact (customer and/or supplier).", {
    "name": p(S, "Contact name"), "email": p(S, "Email address"),
    "is_supplier": p(B, "Mark as supplier"), "tax_number": p(S, "VAT/ABN/GST number")}, ["name"])
tool(X, "list-bank-transactions", "Spend and receive money transactions on a bank account. Set unreconciled_only to see what still needs matching.", {
    "bank_account_id": p(S, "AccountID of the bank account"), "from_date": p(S, "From"),
    "to_date": p(S, "To"), "unreconciled_only": p(B, "Only unreconciled lines")}, ["bank_account_id"])
tool(X, "create-credit-note", "Issue a credit note to a customer, optionally allocating it against an invoice.", {
    "contact_id": p(S, "ContactID"), "line_items": dict(LINES, description="Credited lines"),
    "invoice_id": p(S, "Invoice to allocate against")}, ["contact_id", "line_items"])
tool(X, "aged-receivables-report", "Aged receivables by contact: what customers owe, bucketed by days overdue.", {
    "date": p(S, "Report date"), "contact_id": p(S, "Single contact")})
tool(X, "aged-payables-report", "Aged payables by contact: amounts owed to suppliers, bucketed by age.", {
    "date": p(S, "Report date")})
tool(X, "profit-and-loss-report", "Profit & loss statement for a period; can compare several periods side by side.", {
    "from_date": p(S, "Period start"), "to_date": p(S, "Period end"),
    "periods": p(I, "Number of comparison periods"), "timeframe": p(S, "MONTH, QUARTER, YEAR")}, ["from_date", "to_date"])
tool(X, "create-payment", "Apply a payment to an invoice or bill from a bank account.", {
    "invoice_id": p(S, "InvoiceID"), "account_id": p(S, "Bank AccountID"),
    "amount": p(N, "Amount"), "date": p(S, "Payment date")}, ["invoice_id", "account_id", "amount"])
tool(X, "list-tax-rates", "Tax rates configured for the organisation (GST/VAT/sales tax), with their effective rates.", {})

# ---------------------------------------------------------------- stripe (payments, subscriptions)
ST = "stripe"
tool(ST, "create_customer", "Create a Stripe customer object.", {
    "email": p(S, "Email"), "name": p(S, "Full name or business name"),
    "description": p(S, "Internal note"), "metadata": p("object", "Key/value pairs")})
tool(ST, "list_customers", "List customers, newest first. Filter by exact email.", {
    "email": p(S, "Exact email"), "limit": p(I, "1-100")})
tool(ST, "create_payment_intent", "Create a PaymentIntent to collect a one-off payment of the given amount (in the smallest currency unit).", {
    "amount": p(I, "Amount in cents"), "currency": p(S, "Three-letter ISO code"),
    "customer": p(S, "Customer id"), "payment_method": p(S, "Saved payment method to charge"),
    "confirm": p(B, "Confirm immediately")}, ["amount", "currency"])
tool(ST, "create_payment_link", "Create a shareable hosted checkout URL for a price. Anyone with the link can pay.", {
    "price": p(S, "Price id"), "quantity": p(I, "Quantity"),
    "allow_promotion_codes": p(B, "Let buyers enter promo codes")}, ["price"])
tool(ST, "list_charges", "List charges, optionally for one customer or since a timestamp. Includes status, amount and failure reason.", {
    "customer": p(S, "Customer id"), "created_gte": p(I, "Unix time lower bound"), "limit": p(I, "Page size")})
tool(ST, "create_refund", "Refund a charge or PaymentIntent, fully or partially.", {
    "payment_intent": p(S, "PaymentIntent id"), "charge": p(S, "Charge id (alternative)"),
    "amount": p(I, "Partial amount in cents; omit for full"),
    "reason": p(S, "duplicate, fraudulent, requested_by_customer")})
tool(ST, "create_product", "Create a product in the Stripe catalog.", {
    "name": p(S, "Product name"), "description": p(S, "Shown at checkout")}, ["name"])
tool(ST, "create_price", "Create a one-time or recurring price for a product.", {
    "product": p(S, "Product id"), "unit_amount": p(I, "Cents"), "currency": p(S, "Currency"),
    "recurring_interval": p(S, "day, week, month, year; omit for one-time")}, ["product", "unit_amount", "currency"])
tool(ST, "create_subscription", "Start a subscription for a customer on one or more recurring prices, with optional free trial.", {
    "customer": p(S, "Customer id"), "price": p(S, "Recurring price id"),
    "trial_period_days": p(I, "Free trial length"), "coupon": p(S, "Coupon id")}, ["customer", "price"])
tool(ST, "update_subscription", "Change a subscription: swap plan, change seat quantity, set proration behaviour.", {
    "subscription": p(S, "Subscription id"), "price": p(S, "New price id"),
    "quantity": p(I, "Seats"), "proration_behavior": p(S, "create_prorations | none | always_invoice")}, ["subscription"])
tool(ST, "cancel_subscription", "Cancel a subscription now or at the end of the current billing period.", {
    "subscription": p(S, "Subscription id"), "at_period_end": p(B, "Wait until period ends")}, ["subscription"])
tool(ST, "create_coupon", "Create a coupon: percent or fixed amount off, once, repeating for N months, or forever.", {
    "percent_off": p(N, "Percent"), "amount_off": p(I, "Fixed cents"), "currency": p(S, "Needed with amount_off"),
    "duration": p(S, "once | repeating | forever"), "duration_in_months": p(I, "For repeating")}, ["duration"])
tool(ST, "create_invoice", "Create a draft Stripe invoice for a customer from pending invoice items; set auto_advance to finalize and collect automatically.", {
    "customer": p(S, "Customer id"), "collection_method": p(S, "charge_automatically | send_invoice"),
    "days_until_due": p(I, "For send_invoice"), "auto_advance": p(B, "Finalize automatically")}, ["customer"])
tool(ST, "list_disputes", "List chargebacks/disputes with their status and evidence due date.", {
    "status": p(S, "warning_needs_response, needs_response, under_review, won, lost"), "limit": p(I, "Page size")})
tool(ST, "retrieve_balance", "Current account balance: available and pending funds per currency.", {})

# ---------------------------------------------------------------- shopify (e-commerce, inventory)
SH = "shopify"
tool(SH, "shopify_list_orders", "List store orders. Filter by status, payment (financial) status, fulfillment status or creation date.", {
    "status": p(S, "open, closed, cancelled, any"), "financial_status": p(S, "paid, pending, refunded, ..."),
    "fulfillment_status": p(S, "shipped, partial, unshipped"), "created_at_min": p(S, "ISO date"),
    "limit": p(I, "Max 250")})
tool(SH, "shopify_get_order", "Get one order by id or order number (#1001) with line items, shipping address and transactions.", {
    "order_id": p(S, "Order id or name")}, ["order_id"])
tool(SH, "shopify_cancel_order", "Cancel an order; optionally restock items and email the customer.", {
    "order_id": p(S, "Order id"), "reason": p(S, "customer, fraud, inventory, declined, other"),
    "restock": p(B, "Return items to inventory"), "email": p(B, "Notify customer")}, ["order_id"])
tool(SH, "shopify_refund_order", "Refund all or some line items (and optionally shipping) on an order back to the original payment method.", {
    "order_id": p(S, "Order id"), "line_items": {"type": "array", "items": {"type": "object"}, "description": "line_item_id + quantity"},
    "refund_shipping": p(B, "Include shipping"), "notify": p(B, "Email customer")}, ["order_id"])
tool(SH, "shopify_create_fulfillment", "Mark order items as fulfilled/shipped and attach tracking info; the customer gets a shipping confirmation.", {
    "order_id": p(S, "Order id"), "tracking_number": p(S, "Tracking number"),
    "tracking_company": p(S, "Carrier name"), "notify_customer": p(B, "Send email")}, ["order_id"])
tool(SH, "shopify_create_product", "Add a product to the store with title, description, vendor, variants and price.", {
    "title": p(S, "Product title"), "body_html": p(S, "Description HTML"), "vendor": p(S, "Brand"),
    "product_type": p(S, "Category"), "variants": {"type": "array", "items": {"type": "object"}, "description": "sku, price, option values"},
    "status": p(S, "active or draft")}, ["title"])
tool(SH, "shopify_update_product", "Edit an existing product: title, description, tags, price of variants, or publish status.", {
    "product_id": p(S, "Product id"), "fields": p("object", "Fields to change")}, ["product_id", "fields"])
tool(SH, "shopify_get_inventory_levels", "Stock on hand per location for a product or inventory item.", {
    "product_id": p(S, "Product id"), "location_id": p(S, "Location id")})
tool(SH, "shopify_set_inventory_level", "Set the available quantity of an inventory item at a location (absolute value, not a delta).", {
    "inventory_item_id": p(S, "Inventory item id"), "location_id": p(S, "Location id"),
    "available": p(I, "New quantity")}, ["inventory_item_id", "location_id", "available"])
tool(SH, "shopify_create_discount_code", "Create a discount code for the storefront: percentage, fixed amount or free shipping, with dates and usage limit.", {
    "code": p(S, "Code customers type"), "value_type": p(S, "percentage | fixed_amount | free_shipping"),
    "value": p(N, "Amount"), "starts_at": p(S, "Start"), "ends_at": p(S, "End"), "usage_limit": p(I, "Max uses")}, ["code", "value_type"])
tool(SH, "shopify_search_customers", "Search store customers by name, email, phone or order count.", {
    "query": p(S, "Search string, e.g. 'email:jo@x.com' or 'orders_count:>3'")}, ["query"])
tool(SH, "shopify_list_abandoned_checkouts", "Checkouts started but not completed.", {
    "since": p(S, "ISO date"), "limit": p(I, "Page size")})

# ---------------------------------------------------------------- shippo (shipping)
SP = "shippo"
ADDR = p("object", "name, street1, city, state, zip, country")
tool(SP, "getShippingRates", "Quote rates from all connected carriers for a parcel between two addresses. Returns price, service level and estimated days.", {
    "address_from": ADDR, "address_to": ADDR,
    "parcel": p("object", "length, width, height, distance_unit, weight, mass_unit")}, ["address_from", "address_to", "parcel"])
tool(SP, "purchaseLabel", "Buy a postage label for a chosen rate and get the label PDF and tracking number.", {
    "rate_id": p(S, "Rate object id from getShippingRates"), "label_file_type": p(S, "PDF, PNG, ZPLII")}, ["rate_id"])
tool(SP, "trackShipment", "Tracking status and event history for a shipment.", {
    "carrier": p(S, "usps, ups, fedex, dhl_express, ..."), "tracking_number": p(S, "Tracking number")}, ["carrier", "tracking_number"])
tool(SP, "voidLabel", "Request a refund for an unused label.", {
    "transaction_id": p(S, "Label transaction id")}, ["transaction_id"])
tool(SP, "createReturnLabel", "Generate a prepaid return label for an earlier outbound shipment (addresses swapped).", {
    "original_transaction_id": p(S, "Outbound label transaction id")}, ["original_transaction_id"])
tool(SP, "validateAddress", "Check and normalise a postal address; flags undeliverable or ambiguous ones.", {
    "address": ADDR}, ["address"])
tool(SP, "schedulePickup", "Book a carrier pickup at an address for a time window.", {
    "carrier_account": p(S, "Carrier account id"), "location": ADDR,
    "requested_start_time": p(S, "ISO datetime"), "requested_end_time": p(S, "ISO datetime"),
    "transaction_ids": dict(ARR_S, description="Labels to be picked up")}, ["carrier_account", "location", "requested_start_time"])
tool(SP, "createCustomsDeclaration", "Customs declaration for international parcels: item descriptions, HS codes, values, origin country.", {
    "contents_type": p(S, "MERCHANDISE, GIFT, SAMPLE, DOCUMENTS, RETURN_MERCHANDISE"),
    "items": {"type": "array", "items": {"type": "object"}, "description": "description, quantity, value_amount, tariff_number, origin_country"},
    "certify_signer": p(S, "Name of person certifying")}, ["contents_type", "items", "certify_signer"])
tool(SP, "listCarrierAccounts", "Carrier accounts connected to this Shippo account and whether each is active.", {})
tool(SP, "createManifest", "End-of-day manifest (SCAN form) for a carrier so all labels of the day are accepted at once.", {
    "carrier_account": p(S, "Carrier account id"), "shipment_date": p(S, "Date"),
    "address_from": ADDR}, ["carrier_account", "shipment_date"])

# ---------------------------------------------------------------- gusto (HR, payroll)
G = "gusto"
tool(G, "employees_list", "List employees of the company. Filter by department or employment status.", {
    "department": p(S, "Department name"), "terminated": p(B, "Include former employees")})
tool(G, "employee_get", "Get one employee's profile: job, pay rate, manager, start date, home address.", {
    "employee_id": p(S, "Employee uuid")}, ["employee_id"])
tool(G, "employee_onboard", "Add a new hire and send them the self-onboarding invite (tax forms, direct deposit, I-9).", {
    "first_name": p(S, "First name"), "last_name": p(S, "Last name"), "email": p(S, "Personal email"),
    "start_date": p(S, "First day"), "job_title": p(S, "Title"), "rate": p(N, "Pay rate"),
    "payment_unit": p(S, "Hour, Year")}, ["first_name", "last_name", "email", "start_date"])
tool(G, "employee_terminate", "Record an employee's departure with last working day; can trigger a final off-cycle payroll.", {
    "employee_id": p(S, "Employee uuid"), "effective_date": p(S, "Last day"),
    "run_termination_payroll": p(B, "Run final paycheck off-cycle")}, ["employee_id", "effective_date"])
tool(G, "compensation_update", "Change an employee's pay rate or pay basis from an effective date (raises, promotions, switching hourly/salary).", {
    "employee_id": p(S, "Employee uuid"), "rate": p(N, "New rate"),
    "payment_unit": p(S, "Hour, Week, Month, Year"), "flsa_status": p(S, "Exempt, Nonexempt"),
    "effective_date": p(S, "From date")}, ["employee_id", "rate", "payment_unit"])
tool(G, "payroll_calculate", "Calculate a pending payroll without submitting it: gross pay, taxes, deductions and net pay per employee.", {
    "payroll_id": p(S, "Payroll uuid"), "hours": p("object", "Optional hours per employee")}, ["payroll_id"])
tool(G, "payroll_submit", "Submit a calculated payroll for processing. Money moves; this cannot be undone after the deadline.", {
    "payroll_id": p(S, "Payroll uuid")}, ["payroll_id"])
tool(G, "payrolls_list", "Past and upcoming payrolls with pay period, check date and totals.", {
    "start_date": p(S, "From"), "end_date": p(S, "To"), "processed": p(B, "Only processed ones")})
tool(G, "paystub_get", "Download an employee's pay stub for a given payroll as PDF.", {
    "employee_id": p(S, "Employee uuid"), "payroll_id": p(S, "Payroll uuid")}, ["employee_id", "payroll_id"])
tool(G, "time_off_requests_list", "Time-off requests (vacation, sick, PTO) with status and dates.", {
    "status": p(S, "pending, approved, denied"), "employee_id": p(S, "Employee uuid"),
    "start_date": p(S, "From"), "end_date": p(S, "To")})
tool(G, "time_off_request_review", "Approve or deny a pending time-off request.", {
    "request_id": p(S, "Request id"), "decision": p(S, "approve | deny"), "note": p(S, "Message to employee")}, ["request_id", "decision"])
tool(G, "contractor_payment_create", "Pay a 1099 contractor a one-off amount (wage, bonus or reimbursement).", {
    "contractor_id": p(S, "Contractor uuid"), "wage": p(N, "Amount"), "date": p(S, "Payment date"),
    "memo": p(S, "Memo")}, ["contractor_id", "wage", "date"])
tool(G, "tax_documents_list", "Year-end tax forms (W-2, 1099-NEC, 940/941) for the company or an employee.", {
    "year": p(I, "Tax year"), "form_type": p(S, "W-2, 1099, 941, 940"), "employee_id": p(S, "Optional employee")}, ["year"])

# ---------------------------------------------------------------- greenhouse (recruiting)
GH = "greenhouse"
tool(GH, "ListJobs", "Lists jobs (requisitions) with status, department, office and hiring team.", {
    "status": p(S, "open, closed, draft"), "department_id": p(I, "Department")})
tool(GH, "CreateJobPost", "Publish a job post for a job to the careers page and job boards.", {
    "job_id": p(I, "Job id"), "title": p(S, "Public title"), "content": p(S, "Description HTML"),
    "location": p(S, "Location text"), "boards": dict(ARR_S, description="Board ids")}, ["job_id", "title", "content"])
tool(GH, "ListCandidates", "Lists candidates, optionally for one job, with created/updated-after filters.", {
    "job_id": p(I, "Job id"), "created_after": p(S, "ISO date"), "email": p(S, "Exact email")})
tool(GH, "GetCandidate", "Full candidate profile: contact details, resume, applications, tags.", {
    "candidate_id": p(I, "Candidate id")}, ["candidate_id"])
tool(GH, "CreateCandidate", "Add a candidate (prospect or applicant) and attach a resume.", {
    "first_name": p(S, "First name"), "last_name": p(S, "Last name"), "email": p(S, "Email"),
    "job_id": p(I, "Apply to this job"), "resume_url": p(S, "Link to resume file"), "source": p(S, "Referral, LinkedIn, ...")},
    ["first_name", "last_name"])
tool(GH, "AdvanceApplication", "Move an application to the next interview stage (or a chosen stage).", {
    "application_id": p(I, "Application id"), "to_stage_id": p(I, "Target stage; default next")}, ["application_id"])
tool(GH, "RejectApplication", "Reject an application with a reason and optionally send a rejection email.", {
    "application_id": p(I, "Application id"), "rejection_reason_id": p(I, "Reason"),
    "send_email": p(B, "Email the candidate"), "email_template_id": p(I, "Template")}, ["application_id", "rejection_reason_id"])
tool(GH, "ScheduleInterview", "Schedule an interview for an application with interviewers and a time slot; sends calendar invites.", {
    "application_id": p(I, "Application id"), "interviewer_ids": {"type": "array", "items": {"type": "integer"}},
    "start": p(S, "ISO datetime"), "end": p(S, "ISO datetime"), "location": p(S, "Room or video link")},
    ["application_id", "interviewer_ids", "start", "end"])
tool(GH, "SubmitScorecard", "Submit interview feedback: ratings per attribute and an overall recommendation.", {
    "application_id": p(I, "Application id"), "interview_id": p(I, "Interview"),
    "overall_recommendation": p(S, "definitely_not, no, yes, strong_yes"), "notes": p(S, "Free text")},
    ["application_id", "overall_recommendation"])
tool(GH, "CreateOffer", "Create an offer for an application: salary, start date, custom offer fields.", {
    "application_id": p(I, "Application id"), "salary": p(N, "Base salary"), "start_date": p(S, "Start date"),
    "custom_fields": p("object", "Equity, bonus, etc.")}, ["application_id"])
tool(GH, "AddCandidateNote", "Add a private note to a candidate's activity feed.", {
    "candidate_id": p(I, "Candidate id"), "body": p(S, "Note"), "visibility": p(S, "admin_only, private, public")}, ["candidate_id", "body"])
tool(GH, "ListApplicationsForJob", "Applications on a job with current stage, status and source; useful for pipeline counts.", {
    "job_id": p(I, "Job id"), "status": p(S, "active, rejected, hired")}, ["job_id"])

# ---------------------------------------------------------------- zendesk (support desk)
Z = "zendesk"
tool(Z, "zendesk_create_ticket", "Create a Zendesk Support ticket on behalf of a requester.", {
    "subject": p(S, "Subject"), "comment": p(S, "First comment body"), "requester_email": p(S, "Requester"),
    "priority": p(S, "low, normal, high, urgent"), "tags": dict(ARR_S, description="Tags")}, ["subject", "comment"])
tool(Z, "zendesk_get_ticket", "Retrieve a ticket by ID with its full comment thread.", {
    "ticket_id": p(I, "Ticket id"), "include_comments": p(B, "Default true")}, ["ticket_id"])
tool(Z, "zendesk_update_ticket", "Update ticket fields: status (open, pending, solved), priority, assignee, group or tags.", {
    "ticket_id": p(I, "Ticket id"), "status": p(S, "new, open, pending, hold, solved, closed"),
    "priority": p(S, "Priority"), "assignee_id": p(I, "Agent"), "group_id": p(I, "Group"),
    "tags": dict(ARR_S, description="Replace tags")}, ["ticket_id"])
tool(Z, "zendesk_search_tickets", "Search tickets with Zendesk query syntax (e.g. 'status:open requester:jo@x.com refund').", {
    "query": p(S, "Search query"), "sort_by": p(S, "created_at, updated_at, priority")}, ["query"])
tool(Z, "zendesk_list_tickets", "List tickets in a view (e.g. 'My unsolved', 'Unassigned').", {
    "view_id": p(I, "View id"), "page": p(I, "Page")}, ["view_id"])
tool(Z, "zendesk_add_comment", "Reply to the requester (public) or leave an internal note (private) on a ticket.", {
    "ticket_id": p(I, "Ticket id"), "body": p(S, "Text"), "public": p(B, "false = internal note")}, ["ticket_id", "body"])
tool(Z, "zendesk_merge_tickets", "Merge one or more source tickets into a target ticket; sources are closed.", {
    "target_id": p(I, "Surviving ticket"), "source_ids": {"type": "array", "items": {"type": "integer"}}}, ["target_id", "source_ids"])
tool(Z, "zendesk_list_macros", "Available macros (canned responses + field changes).", {
    "active": p(B, "Only active"), "category": p(S, "Category")})
tool(Z, "zendesk_apply_macro", "Apply a macro to a ticket.", {
    "ticket_id": p(I, "Ticket id"), "macro_id": p(I, "Macro id")}, ["ticket_id", "macro_id"])
tool(Z, "zendesk_get_satisfaction_ratings", "CSAT survey results: good/bad ratings with comments over a time range.", {
    "score": p(S, "good, bad, offered"), "start_time": p(I, "Unix time"), "end_time": p(I, "Unix time")})
tool(Z, "zendesk_search_help_center", "Search Help Center knowledge-base articles.", {
    "query": p(S, "Terms"), "locale": p(S, "en-us, ...")}, ["query"])

# ---------------------------------------------------------------- mailchimp (email marketing)
M = "mailchimp"
tool(M, "listAudiences", "Get all audiences (lists) in the account with member counts.", {})
tool(M, "addOrUpdateMember", "Subscribe an email to an audience, or update their merge fields if already present.", {
    "list_id": p(S, "Audience id"), "email_address": p(S, "Email"),
    "status_if_new": p(S, "subscribed, pending (double opt-in)"), "merge_fields": p("object", "FNAME, LNAME, ...")},
    ["list_id", "email_address"])
tool(M, "unsubscribeMember", "Opt an address out of an audience.", {
    "list_id": p(S, "Audience id"), "email_address": p(S, "Email")}, ["list_id", "email_address"])
tool(M, "tagMember", "Add or remove tags on an audience member.", {
    "list_id": p(S, "Audience id"), "email_address": p(S, "Email"),
    "tags": {"type": "array", "items": {"type": "object"}, "description": "{name, status: active|inactive}"}},
    ["list_id", "email_address", "tags"])
tool(M, "createSegment", "Create a saved segment of an audience from conditions (e.g. opened last campaign, signup date, tag).", {
    "list_id": p(S, "Audience id"), "name": p(S, "Segment name"),
    "conditions": {"type": "array", "items": {"type": "object"}}, "match": p(S, "any | all")}, ["list_id", "name"])
tool(M, "createCampaign", "Create a regular email campaign draft for an audience or segment.", {
    "list_id": p(S, "Audience id"), "segment_id": p(I, "Optional segment"),
    "subject_line": p(S, "Subject"), "preview_text": p(S, "Preview"), "from_name": p(S, "Sender name"),
    "reply_to": p(S, "Reply-to email")}, ["list_id", "subject_line", "from_name", "reply_to"])
tool(M, "setCampaignContent", "Set the HTML body of a campaign, or base it on a saved template.", {
    "campaign_id": p(S, "Campaign id"), "html": p(S, "HTML"), "template_id": p(I, "Template")}, ["campaign_id"])
tool(M, "sendTestEmail", "Send a test version of a campaign to a few addresses for proofing.", {
    "campaign_id": p(S, "Campaign id"), "test_emails": dict(ARR_S, description="Recipients")}, ["campaign_id", "test_emails"])
tool(M, "scheduleCampaign", "Schedule a campaign for delivery at a future time (UTC, quarter-hour).", {
    "campaign_id": p(S, "Campaign id"), "schedule_time": p(S, "ISO datetime")}, ["campaign_id", "schedule_time"])
tool(M, "sendCampaign", "Send a campaign right now.", {"campaign_id": p(S, "Campaign id")}, ["campaign_id"])
tool(M, "getCampaignReport", "Opens, clicks, bounces, unsubscribes and revenue for a sent campaign.", {
    "campaign_id": p(S, "Campaign id")}, ["campaign_id"])

# ---------------------------------------------------------------- google ads
GA = "google_ads"
tool(GA, "gads_list_campaigns", "List campaigns in the customer account with status, type and budget.", {
    "customer_id": p(S, "Ads account id"), "status": p(S, "ENABLED, PAUSED, REMOVED")}, ["customer_id"])
tool(GA, "gads_campaign_performance", "Metrics per campaign for a date range: impressions, clicks, CTR, cost, conversions, CPA, ROAS.", {
    "customer_id": p(S, "Ads account id"), "campaign_ids": dict(ARR_S, description="Optional subset"),
    "date_range": p(S, "LAST_7_DAYS, LAST_30_DAYS, or start..end")}, ["customer_id", "date_range"])
tool(GA, "gads_set_campaign_status", "Pause or enable a campaign.", {
    "customer_id": p(S, "Ads account id"), "campaign_id": p(S, "Campaign"), "status": p(S, "ENABLED | PAUSED")},
    ["customer_id", "campaign_id", "status"])
tool(GA, "gads_update_budget", "Change a campaign's average daily budget.", {
    "customer_id": p(S, "Ads account id"), "campaign_id": p(S, "Campaign"), "daily_amount": p(N, "Account currency")},
    ["customer_id", "campaign_id", "daily_amount"])
tool(GA, "gads_add_keywords", "Add keywords to an ad group with a match type and optional max CPC bid.", {
    "ad_group_id": p(S, "Ad group"), "keywords": dict(ARR_S, description="Keyword texts"),
    "match_type": p(S, "EXACT, PHRASE, BROAD"), "cpc_bid": p(N, "Max CPC")}, ["ad_group_id", "keywords"])
tool(GA, "gads_add_negative_keywords", "Exclude search terms at campaign level so ads stop showing for them.", {
    "campaign_id": p(S, "Campaign"), "keywords": dict(ARR_S, description="Terms to exclude"),
    "match_type": p(S, "EXACT, PHRASE, BROAD")}, ["campaign_id", "keywords"])
tool(GA, "gads_create_responsive_search_ad", "Create a responsive search ad from up to 15 headlines and 4 descriptions.", {
    "ad_group_id": p(S, "Ad group"), "headlines": dict(ARR_S, description="<=30 chars each"),
    "descriptions": dict(ARR_S, description="<=90 chars each"), "final_url": p(S, "Landing page")},
    ["ad_group_id", "headlines", "descriptions", "final_url"])
tool(GA, "gads_search_terms_report", "What people actually typed that triggered your ads, with clicks and cost per term.", {
    "customer_id": p(S, "Ads account id"), "campaign_id": p(S, "Campaign"), "date_range": p(S, "Range")}, ["customer_id"])

# ---------------------------------------------------------------- docusign (e-signature + CLM)
D = "docusign"
tool(D, "envelope_create", "Create an envelope from uploaded documents and recipients; sends immediately unless status='created' (draft).", {
    "documents": {"type": "array", "items": {"type": "object"}, "description": "name + base64 or URL"},
    "signers": {"type": "array", "items": {"type": "object"}, "description": "name, email, routing_order"},
    "email_subject": p(S, "Subject of the signing email"), "status": p(S, "sent | created")},
    ["documents", "signers", "email_subject"])
tool(D, "envelope_from_template", "Send an envelope based on a saved template, filling in the template roles.", {
    "template_id": p(S, "Template id"), "roles": {"type": "array", "items": {"type": "object"}, "description": "role_name, name, email"}},
    ["template_id", "roles"])
tool(D, "envelope_get_status", "Status of one envelope and each recipient (sent, delivered, signed, declined).", {
    "envelope_id": p(S, "Envelope id")}, ["envelope_id"])
tool(D, "envelope_list", "List envelopes changed since a date, filterable by status.", {
    "from_date": p(S, "ISO date"), "status": p(S, "sent, delivered, completed, declined, voided")}, ["from_date"])
tool(D, "envelope_void", "Void an in-process envelope so it can no longer be signed.", {
    "envelope_id": p(S, "Envelope id"), "voided_reason": p(S, "Reason shown to recipients")}, ["envelope_id", "voided_reason"])
tool(D, "envelope_remind", "Resend the signing notification to recipients who haven't acted yet.", {
    "envelope_id": p(S, "Envelope id")}, ["envelope_id"])
tool(D, "envelope_download", "Download the completed documents (combined PDF) and optionally the certificate of completion.", {
    "envelope_id": p(S, "Envelope id"), "include_certificate": p(B, "Append certificate")}, ["envelope_id"])
tool(D, "templates_list", "Saved templates in the account.", {"search_text": p(S, "Filter by name")})
tool(D, "clm_search_agreements", "Search the contract repository by counterparty, agreement type, or text inside the agreement.", {
    "counterparty": p(S, "Other party name"), "agreement_type": p(S, "NDA, MSA, SOW, Order Form, ..."),
    "text": p(S, "Full-text terms")})
tool(D, "clm_list_expiring", "Agreements whose end date or auto-renewal notice deadline falls within the next N days.", {
    "within_days": p(I, "Look-ahead window"), "auto_renew_only": p(B, "Only auto-renewing")}, ["within_days"])
tool(D, "clm_extract_terms", "AI extraction of key terms from an agreement: parties, term, renewal, termination, liability cap, governing law.", {
    "agreement_id": p(S, "Agreement id")}, ["agreement_id"])
tool(D, "clm_submit_for_review", "Route an agreement to legal for review/approval with a note.", {
    "agreement_id": p(S, "Agreement id"), "reviewer": p(S, "Reviewer email or group"), "note": p(S, "Context")},
    ["agreement_id"])

# ---------------------------------------------------------------- expensify (expense reports)
E = "expensify"
tool(E, "createExpense", "Create an expense with merchant, amount, date and category, optionally on a report.", {
    "merchant": p(S, "Merchant"), "amount": p(N, "Amount"), "currency": p(S, "ISO currency"),
    "date": p(S, "YYYY-MM-DD"), "category": p(S, "Meals, Travel, Lodging, ..."), "report_id": p(S, "Report")},
    ["merchant", "amount", "date"])
tool(E, "scanReceipt", "SmartScan a receipt image and create an expense from what it reads (merchant, total, date).", {
    "image_url": p(S, "URL or data URI of the receipt photo/PDF")}, ["image_url"])
tool(E, "listExpenses", "List expenses for a user and date range.", {
    "employee_email": p(S, "Submitter"), "from": p(S, "Start"), "to": p(S, "End"), "category": p(S, "Category")})
tool(E, "createReport", "Create an expense report and add expenses to it.", {
    "title": p(S, "Report title"), "expense_ids": dict(ARR_S, description="Expenses to include")}, ["title"])
tool(E, "submitReport", "Submit a report to the approver in the policy's workflow.", {
    "report_id": p(S, "Report id"), "approver": p(S, "Override approver email")}, ["report_id"])
tool(E, "approveReport", "Approve a submitted report (moves to next approver or to final approval).", {
    "report_id": p(S, "Report id"), "comment": p(S, "Optional comment")}, ["report_id"])
tool(E, "rejectReport", "Return a report to the submitter with a reason so they can fix it.", {
    "report_id": p(S, "Report id"), "reason": p(S, "Why")}, ["report_id", "reason"])
tool(E, "reimburseReport", "Reimburse an approved report via ACH direct deposit or mark as reimbursed manually.", {
    "report_id": p(S, "Report id"), "method": p(S, "ach | manual")}, ["report_id"])
tool(E, "listReports", "Expense reports filtered by state (OPEN, SUBMITTED, APPROVED, REIMBURSED) and submitter.", {
    "status": p(S, "State"), "submitter": p(S, "Email")})
tool(E, "exportReportsToAccounting", "Export approved reports to the connected accounting package (QuickBooks, Xero, NetSuite).", {
    "report_ids": dict(ARR_S, description="Reports"), "target": p(S, "quickbooks | xero | netsuite")}, ["report_ids"])

if __name__ == "__main__":
    with open(os.path.join(HERE, "tools.json"), "w") as f:
        json.dump(TOOLS, f, indent=1, ensure_ascii=False)
    servers = {t["server"] for t in TOOLS}
    print(len(TOOLS), "tools,", len(servers), "services")
