"""Shopify (camelCase, Admin API style) and WooCommerce (kebab-case)."""
from _common import Server

sh = Server("shopify", titles=True)
t = sh.t
OID = "*Order ID or name, e.g. #1182"
PID = "*Product ID"
t("getOrders", "List orders filtered by status, financial status, fulfillment status, customer or date.",
  status=("string", "Status", ["open", "closed", "cancelled", "any"]), financialStatus="paid, refunded, pending...",
  fulfillmentStatus="fulfilled, unfulfilled, partial", createdAtMin="Since", first=("integer", "Page size"))
t("getOrder", "Get an order with line items, customer, shipping address, payments and fulfillments.", orderId=OID)
t("createDraftOrder", "Create a draft order (e.g. a phone order or custom quote) that can be sent as an invoice.",
  lineItems=("array", "*Variant IDs and quantities"), customerId="Customer", note="Note", appliedDiscount=("object", "Discount"))
t("completeDraftOrder", "Turn a draft order into a real order, marking it paid or pending.", draftOrderId="*Draft order ID",
  paymentPending=("boolean", "Leave payment pending"))
t("cancelOrder", "Cancel an order, optionally refunding, restocking and notifying the customer.", orderId=OID,
  reason=("string", "Reason", ["customer", "fraud", "inventory", "declined", "other"]), refund=("boolean", "Refund payment"),
  restock=("boolean", "Put items back in stock"), notifyCustomer=("boolean", "Email the customer"))
t("refundOrder", "Refund some or all line items and shipping of an order to the original payment method.", orderId=OID,
  lineItems=("array", "Line items and quantities"), shippingAmount=("number", "Shipping to refund"),
  restock=("boolean", "Restock items"), note="Reason")
t("updateOrder", "Edit an order's note, tags, email or shipping address.", orderId=OID, note="Note", tags=("array", "Tags"),
  shippingAddress=("object", "Address"))
t("addOrderTags", "Add tags to an order, e.g. 'vip' or 'gift'.", orderId=OID, tags=("array", "*Tags"))
t("createFulfillment", "Mark order items as shipped with a carrier and tracking number, notifying the customer.",
  orderId=OID, trackingNumber="Tracking number", trackingCompany="Carrier", notifyCustomer=("boolean", "Send shipping email"))
t("updateFulfillmentTracking", "Change the tracking number or carrier on a fulfillment.", fulfillmentId="*Fulfillment ID",
  trackingNumber="*Tracking number", trackingCompany="Carrier")
t("getProducts", "List products with title, status, vendor, type and variants; filter with a query.", query="Filter query",
  first=("integer", "Page size"))
t("getProduct", "Get a product with its variants, options, images and inventory.", productId=PID)
t("createProduct", "Create a product with title, description, vendor, type, tags, options and variants.", title="*Title",
  descriptionHtml="Description", vendor="Vendor", productType="Type", tags=("array", "Tags"),
  variants=("array", "Variants with price and SKU"), status=("string", "Status", ["active", "draft", "archived"]))
t("updateProduct", "Change a product's title, description, tags, status or SEO fields.", productId=PID, title="Title",
  descriptionHtml="Description", status="Status", tags=("array", "Tags"))
t("deleteProduct", "Delete a product and its variants.", productId=PID)
t("updateVariantPrice", "Set the price and compare-at price of a product variant.", variantId="*Variant ID",
  price="*Price", compareAtPrice="Compare-at price")
t("adjustInventory", "Increase or decrease available stock for an item at a location.", inventoryItemId="*Inventory item",
  locationId="*Location", delta=("integer", "*Change, e.g. -3"), reason="Reason, e.g. damaged")
t("getInventoryLevels", "Get available quantities of an item at each location.", inventoryItemId="*Inventory item")
t("getLocations", "List store locations and warehouses.")
t("getCustomers", "Search customers by name, email, order count or tag.", query="Filter query")
t("getCustomer", "Get a customer with addresses, order history, total spent and marketing consent.", customerId="*Customer ID")
t("createCustomer", "Create a customer with email, phone, addresses and tags.", email="Email", firstName="First name",
  lastName="Last name", phone="Phone", tags=("array", "Tags"))
t("updateCustomer", "Update a customer's contact details, tags or note.", customerId="*Customer ID", email="Email",
  tags=("array", "Tags"), note="Note")
t("createDiscountCode", "Create a discount code (percentage, fixed amount or free shipping) with dates and usage limits.",
  code="*Code", type=("string", "*Type", ["percentage", "fixed_amount", "free_shipping"]), value=("number", "Value"),
  startsAt="Start", endsAt="End", usageLimit=("integer", "Total uses"))
t("getDiscounts", "List discounts with status and usage counts.", query="Filter")
t("getCollections", "List smart and custom collections.", query="Filter")
t("addProductsToCollection", "Add products to a custom collection.", collectionId="*Collection ID", productIds=("array", "*Products"))
t("createGiftCard", "Issue a gift card with a balance, optionally for a customer.", initialValue=("number", "*Balance"),
  customerId="Customer", note="Note", expiresOn="Expiry")
t("getAbandonedCheckouts", "List checkouts customers started but did not complete.", createdAtMin="Since")
t("getShopAnalytics", "Run a ShopifyQL report, e.g. sales by product last month or sessions by channel.",
  query="*ShopifyQL query")
t("getPayouts", "List Shopify Payments payouts with amounts and dates.", status="Status")
t("createReturn", "Open a return for order items, optionally with a return shipping label.", orderId=OID,
  lineItems=("array", "*Items and quantities"), reason="Return reason")
t("getShopInfo", "Get the shop's name, domain, plan, currency and time zone.")
TOOLS = sh.tools

wc = Server("woocommerce")
t = wc.t
OIDW = ("integer", "*Order ID")
t("list-orders", "List store orders filtered by status (processing, completed, on-hold), customer or date.",
  status="Status", customer=("integer", "Customer ID"), after="Created after", per_page=("integer", "Page size"))
t("get-order", "Retrieve an order with items, billing and shipping details, and payment method.", id=OIDW)
t("create-order", "Create an order manually with line items, customer and addresses.", customer_id=("integer", "Customer"),
  line_items=("array", "*Product IDs and quantities"), billing=("object", "Billing address"), set_paid=("boolean", "Mark paid"))
t("update-order-status", "Set an order's status, e.g. processing to completed or on-hold.", id=OIDW,
  status=("string", "*Status", ["pending", "processing", "on-hold", "completed", "cancelled", "refunded", "failed"]))
t("add-order-note", "Add a private note or a note emailed to the customer on an order.", order_id=OIDW, note="*Note text",
  customer_note=("boolean", "Send to the customer"))
t("list-order-notes", "List the notes on an order.", order_id=OIDW)
t("create-refund", "Refund an order fully or partly, optionally through the payment gateway.", order_id=OIDW,
  amount="*Amount", reason="Reason", api_refund=("boolean", "Refund through the gateway"))
t("delete-order", "Delete an order or move it to the trash.", id=OIDW, force=("boolean", "Skip the trash"))
t("list-products", "List products with price, stock status and categories.", search="Search term", category="Category ID",
  stock_status=("string", "Stock", ["instock", "outofstock", "onbackorder"]))
t("get-product", "Get a product with prices, stock, images and attributes.", id=("integer", "*Product ID"))
t("create-product", "Add a simple or variable product with price, description, categories and images.", name="*Name",
  type=("string", "Type", ["simple", "variable", "grouped", "external"]), regular_price="Price", description="Description",
  categories=("array", "Category IDs"), sku="SKU")
t("update-product", "Edit a product's price, sale price, stock quantity, status or description.", id=("integer", "*Product ID"),
  regular_price="Price", sale_price="Sale price", stock_quantity=("integer", "Stock"), status="Status")
t("delete-product", "Delete a product or move it to the trash.", id=("integer", "*Product ID"), force=("boolean", "Skip trash"))
t("batch-update-products", "Create, update and delete many products in one request.", create=("array", "New products"),
  update=("array", "Changes"), delete=("array", "IDs"))
t("list-product-variations", "List the variations (sizes, colors) of a variable product.", product_id=("integer", "*Product ID"))
t("update-product-variation", "Change a variation's price, SKU or stock.", product_id=("integer", "*Product ID"),
  id=("integer", "*Variation ID"), regular_price="Price", stock_quantity=("integer", "Stock"))
t("list-product-categories", "List product categories with counts.")
t("create-product-category", "Create a product category, optionally nested.", name="*Name", parent=("integer", "Parent category"))
t("list-product-reviews", "List product reviews with rating and status.", product=("integer", "Product filter"),
  status="approved, hold, spam")
t("update-product-review", "Approve, hold or mark a product review as spam.", id=("integer", "*Review ID"),
  status=("string", "*Status", ["approved", "hold", "spam", "trash"]))
t("list-customers", "List customers by email, role or name.", email="Email", search="Search")
t("get-customer", "Get a customer with billing and shipping addresses and order count.", id=("integer", "*Customer ID"))
t("create-customer", "Register a customer account.", email="*Email", first_name="First name", last_name="Last name",
  username="Username")
t("create-coupon", "Create a coupon: percent or fixed cart discount, expiry, minimum spend and usage limits.", code="*Code",
  discount_type=("string", "Type", ["percent", "fixed_cart", "fixed_product"]), amount="*Amount", date_expires="Expiry",
  minimum_amount="Minimum spend", usage_limit=("integer", "Uses"))
t("list-coupons", "List coupons with usage counts.", search="Code search")
t("get-sales-report", "Get sales totals, orders, items and refunds for a period.", period=("string", "Period",
  ["week", "month", "last_month", "year"]), date_min="Start", date_max="End")
t("get-top-sellers-report", "List best-selling products for a period.", period="Period")
t("list-shipping-zones", "List shipping zones and their methods and rates.")
t("list-payment-gateways", "List payment gateways and whether each is enabled.")
t("list-tax-rates", "List tax rates by country, state and class.", tax_class="Tax class")
t("get-system-status", "Get WordPress and WooCommerce versions, active plugins, theme and server environment.")
t("create-webhook", "Create a webhook fired on events like order.created or product.updated.", name="*Name",
  topic="*Topic, e.g. order.created", delivery_url="*URL")
TOOLS += wc.tools
