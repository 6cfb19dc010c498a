"""Stripe (snake_case, like the Stripe agent toolkit) and QuickBooks Online (camelCase)."""
from _common import Server

st = Server("stripe")
t = st.t
CUS = "*Customer ID (cus_...)"
t("create_customer", "Create a Stripe customer with email, name, metadata and a default payment method.", email="Email",
  name="Name", description="Description", metadata=("object", "Key-value metadata"), payment_method="PaymentMethod to attach")
t("retrieve_customer", "Fetch a customer with balance, default payment method, addresses and metadata.", customer=CUS)
t("update_customer", "Update a customer's email, name, address, tax IDs or metadata.", customer=CUS, email="Email",
  name="Name", address=("object", "Billing address"), metadata=("object", "Metadata"))
t("list_customers", "List customers, optionally filtered by email.", email="Exact email", limit=("integer", "Page size"))
t("search_customers", "Search customers with Stripe's query language, e.g. \"metadata['plan']:'pro'\".", query="*Query")
t("delete_customer", "Permanently delete a customer and cancel their subscriptions.", customer=CUS)
t("create_product", "Create a product (the thing you sell) with a name and description.", name="*Name", description="Description")
t("list_products", "List products, active or archived.", active=("boolean", "Active filter"), limit=("integer", "Page size"))
t("create_price", "Create a one-time or recurring price for a product, in the smallest currency unit.", product="*Product ID",
  unit_amount=("integer", "*Amount in cents"), currency="*Currency code", recurring_interval=("string", "Interval",
  ["day", "week", "month", "year"]))
t("list_prices", "List prices for a product.", product="Product ID", active=("boolean", "Active filter"))
t("create_payment_link", "Create a shareable checkout URL that sells a price with a quantity.", price="*Price ID",
  quantity=("integer", "*Quantity"), after_completion_url="Redirect URL")
t("create_checkout_session", "Create a hosted Checkout session for a payment or a subscription.", mode=("string", "*Mode",
  ["payment", "subscription", "setup"]), line_items=("array", "*Price and quantity items"), success_url="*Success URL",
  customer="Customer")
t("create_invoice", "Create a draft invoice for a customer, collected automatically or sent for payment.", customer=CUS,
  collection_method=("string", "Collection", ["charge_automatically", "send_invoice"]), days_until_due=("integer", "Net days"),
  description="Memo")
t("create_invoice_item", "Add a line item (price or amount) to a customer's draft invoice.", customer=CUS, invoice="Draft invoice",
  price="Price ID", amount=("integer", "Amount in cents"), description="Line description")
t("finalize_invoice", "Finalize a draft invoice so it can be paid; numbers it and locks its lines.", invoice="*Invoice ID")
t("send_invoice", "Email a finalized invoice to the customer.", invoice="*Invoice ID")
t("void_invoice", "Void a finalized invoice that should not be paid.", invoice="*Invoice ID")
t("pay_invoice", "Attempt payment of an open invoice now with the default or a given payment method.", invoice="*Invoice ID",
  payment_method="PaymentMethod")
t("list_invoices", "List invoices filtered by customer, status or subscription.", customer="Customer",
  status=("string", "Status", ["draft", "open", "paid", "uncollectible", "void"]), subscription="Subscription")
t("create_credit_note", "Issue a credit note against a paid or open invoice, refunding or crediting part of it.",
  invoice="*Invoice ID", amount=("integer", "Amount in cents"), reason=("string", "Reason",
  ["duplicate", "fraudulent", "order_change", "product_unsatisfactory"]), refund_amount=("integer", "Portion to refund"))
t("list_payment_intents", "List payments (PaymentIntents) with status and amount, optionally for a customer.",
  customer="Customer", limit=("integer", "Page size"))
t("retrieve_payment_intent", "Get a payment's status, amount, charges and last error.", payment_intent="*PaymentIntent ID")
t("capture_payment_intent", "Capture funds of a payment that was authorized with manual capture.",
  payment_intent="*PaymentIntent ID", amount_to_capture=("integer", "Partial amount"))
t("cancel_payment_intent", "Cancel a payment that has not been captured, releasing the authorization.",
  payment_intent="*PaymentIntent ID", cancellation_reason="Reason")
t("create_refund", "Refund all or part of a charge or PaymentIntent.", payment_intent="PaymentIntent ID", charge="Charge ID",
  amount=("integer", "Amount in cents (default: full)"), reason=("string", "Reason", ["duplicate", "fraudulent", "requested_by_customer"]))
t("list_refunds", "List refunds, optionally for a charge or payment.", payment_intent="PaymentIntent filter")
t("list_subscriptions", "List subscriptions by customer, price or status.", customer="Customer", price="Price",
  status=("string", "Status", ["active", "past_due", "canceled", "trialing", "all"]))
t("create_subscription", "Subscribe a customer to one or more recurring prices, with optional trial.", customer=CUS,
  items=("array", "*Price items"), trial_period_days=("integer", "Trial days"), coupon="Coupon")
t("update_subscription", "Change a subscription's prices or quantities (upgrade, downgrade) with proration.",
  subscription="*Subscription ID", items=("array", "Item changes"), proration_behavior=("string", "Proration",
  ["create_prorations", "none", "always_invoice"]))
t("cancel_subscription", "Cancel a subscription immediately or at the end of the billing period.", subscription="*Subscription ID",
  at_period_end=("boolean", "Wait for the period to end"))
t("pause_subscription_collection", "Pause payment collection on a subscription, marking invoices void or uncollectible.",
  subscription="*Subscription ID", behavior=("string", "*Behavior", ["keep_as_draft", "mark_uncollectible", "void"]))
t("create_coupon", "Create a percent-off or amount-off coupon with duration.", percent_off=("number", "Percent"),
  amount_off=("integer", "Amount in cents"), duration=("string", "*Duration", ["once", "repeating", "forever"]), name="Name")
t("create_promotion_code", "Create a customer-facing promotion code for a coupon.", coupon="*Coupon ID", code="*Code, e.g. SPRING25")
t("list_disputes", "List chargebacks (disputes) with status and reason.", status="Status filter")
t("update_dispute", "Submit evidence for a dispute, or accept it.", dispute="*Dispute ID", evidence=("object", "Evidence fields"),
  submit=("boolean", "Submit now"))
t("retrieve_balance", "Get the Stripe balance: available and pending amounts per currency.")
t("list_payouts", "List payouts to the bank account with arrival dates and status.", status="Status filter")
t("create_billing_portal_session", "Create a link to the customer portal where a customer manages billing.", customer=CUS,
  return_url="Return URL")
t("search_stripe_documentation", "Search Stripe's docs and API reference for an integration question.", question="*Question")
TOOLS = st.tools

qb = Server("quickbooks", titles=True)
t = qb.t
t("createInvoice", "Create an invoice for a customer with line items, terms and due date.", customerRef="*Customer ID",
  lines=("array", "*Lines with item, quantity, rate"), dueDate="Due date", terms="Terms, e.g. Net 30", memo="Customer memo")
t("getInvoice", "Read an invoice with lines, balance due and email status.", invoiceId="*Invoice ID")
t("updateInvoice", "Modify an invoice's lines, terms, due date or memo.", invoiceId="*Invoice ID", syncToken="*Sync token",
  lines=("array", "Lines"), dueDate="Due date")
t("emailInvoice", "Email an invoice to the customer's billing address.", invoiceId="*Invoice ID", sendTo="Override address")
t("voidInvoice", "Void an invoice, zeroing its amounts but keeping the record.", invoiceId="*Invoice ID", syncToken="*Sync token")
t("queryInvoices", "Query invoices with a SQL-like filter, e.g. Balance > '0' AND DueDate < '2024-07-01'.", where="Where clause",
  maxResults=("integer", "Max rows"))
t("createCustomer", "Add a customer with display name, company, billing address, email and payment terms.",
  displayName="*Display name", companyName="Company", email="Email", billAddr=("object", "Billing address"))
t("getCustomer", "Read a customer's details and open balance.", customerId="*Customer ID")
t("queryCustomers", "Find customers by name, email or balance.", where="Where clause")
t("createVendor", "Add a vendor (supplier) with contact details and 1099 status.", displayName="*Display name",
  email="Email", vendor1099=("boolean", "Track for 1099"))
t("queryVendors", "Find vendors.", where="Where clause")
t("createBill", "Record a bill from a vendor with expense lines and due date (accounts payable).", vendorRef="*Vendor ID",
  lines=("array", "*Expense lines with account and amount"), dueDate="Due date")
t("queryBills", "Find bills, e.g. unpaid ones due this week.", where="Where clause")
t("createBillPayment", "Pay one or more vendor bills from a bank account or credit card.", vendorRef="*Vendor ID",
  bills=("array", "*Bills and amounts"), payType=("string", "*Pay type", ["Check", "CreditCard"]), bankAccountRef="Account")
t("receivePayment", "Record a customer payment and apply it to open invoices.", customerRef="*Customer ID",
  totalAmt=("number", "*Amount received"), invoices=("array", "Invoices to apply to"), paymentMethodRef="Method")
t("createSalesReceipt", "Record a sale paid on the spot (no invoice).", customerRef="Customer", lines=("array", "*Lines"),
  paymentMethodRef="Payment method")
t("createEstimate", "Create an estimate (quote) a customer can accept before invoicing.", customerRef="*Customer ID",
  lines=("array", "*Lines"), expirationDate="Expiry")
t("convertEstimateToInvoice", "Turn an accepted estimate into an invoice.", estimateId="*Estimate ID")
t("createCreditMemo", "Issue a credit memo to a customer that reduces what they owe.", customerRef="*Customer ID",
  lines=("array", "*Lines"))
t("createRefundReceipt", "Record a refund paid back to a customer from a bank account.", customerRef="*Customer ID",
  lines=("array", "*Lines"), depositToAccountRef="*Account the money comes from")
t("createPurchase", "Record an expense paid by card, cash or check.", accountRef="*Paying account",
  paymentType=("string", "*Type", ["Cash", "Check", "CreditCard"]), lines=("array", "*Expense lines"), entityRef="Payee")
t("createJournalEntry", "Post a journal entry with balancing debit and credit lines.", lines=("array", "*Debit/credit lines"),
  txnDate="Date", privateNote="Memo")
t("createItem", "Create a product or service item with income account, price and, for inventory, quantity on hand.",
  name="*Name", type=("string", "*Type", ["Service", "Inventory", "NonInventory"]), unitPrice=("number", "Price"),
  incomeAccountRef="*Income account", qtyOnHand=("number", "Starting quantity"))
t("queryItems", "Find products and services, with quantity on hand for inventory items.", where="Where clause")
t("createAccount", "Add an account to the chart of accounts.", name="*Name", accountType="*Type, e.g. Expense or Bank",
  accountSubType="Subtype")
t("queryAccounts", "List chart-of-accounts entries and balances.", where="Where clause")
t("getProfitAndLoss", "Run a Profit and Loss report for a date range, optionally by month or class.", startDate="*Start",
  endDate="*End", summarizeColumnsBy=("string", "Columns", ["Total", "Month", "Quarter", "Class", "Customers"]))
t("getBalanceSheet", "Run a Balance Sheet report as of a date.", asOfDate="*Date")
t("getAgedReceivables", "Run the A/R aging report: who owes what and how overdue.", asOfDate="Date")
t("getAgedPayables", "Run the A/P aging report of unpaid vendor bills.", asOfDate="Date")
t("getCashFlow", "Run a Statement of Cash Flows for a period.", startDate="*Start", endDate="*End")
t("createTimeActivity", "Log billable hours worked by an employee or vendor for a customer.", nameOf="*Employee or Vendor",
  workerRef="*Worker ID", customerRef="Customer", hours=("integer", "*Hours"), minutes=("integer", "Minutes"),
  billable=("boolean", "Billable"))
t("createDeposit", "Record a bank deposit grouping payments received.", depositToAccountRef="*Bank account",
  lines=("array", "*Deposit lines"))
TOOLS += qb.tools
