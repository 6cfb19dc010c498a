#!/usr/bin/env python3
"""Writes tools.json: ~160 tool definitions from 14 services (misc domain)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = []


def P(typ, desc, **extra):
    d = {"type": typ, "description": desc}
    d.update(extra)
    return d


def S(desc, **kw):
    return P("string", desc, **kw)


def I(desc, **kw):
    return P("integer", desc, **kw)


def N(desc, **kw):
    return P("number", desc, **kw)


def B(desc, **kw):
    return P("boolean", desc, **kw)


def A(desc, item="string", **kw):
    return P("array", desc, items={"type": item}, **kw)


def T(server, name, desc, props=None, required=None):
    schema = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = required
    TOOLS.append({"server": server, "name": name, "description": desc, "inputSchema": schema})


# ---------------------------------------------------------------- desktop (local machine)
s = "desktop"
T(s, "read_file", "Read the contents of a file on the local filesystem. Text files are returned as UTF-8; use offset and length to page through very large files.",
  {"path": S("Absolute or home-relative path"), "offset": I("Line to start from"), "length": I("Maximum number of lines")}, ["path"])
T(s, "write_file", "Create a new file or completely overwrite an existing one with the given content.",
  {"path": S("Destination path"), "content": S("Full text to write"), "append": B("Append instead of overwriting")}, ["path", "content"])
T(s, "edit_file", "Apply a targeted find-and-replace edit inside a text file without rewriting the whole thing. Fails if old_text is not found exactly once.",
  {"path": S("File to modify"), "old_text": S("Exact text to replace"), "new_text": S("Replacement text")}, ["path", "old_text", "new_text"])
T(s, "list_directory", "List entries of a folder with [FILE]/[DIR] markers.",
  {"path": S("Directory to list"), "show_hidden": B("Include dotfiles")}, ["path"])
T(s, "create_directory", "Make a new directory (and any missing parents). Succeeds silently if it already exists.",
  {"path": S("Directory path to create")}, ["path"])
T(s, "move_file", "Move or rename a file or directory. Can move across folders; fails if the destination already exists.",
  {"source": S("Current path"), "destination": S("New path")}, ["source", "destination"])
T(s, "delete_file", "Permanently remove a file or an empty directory. Set recursive to remove a directory tree.",
  {"path": S("Path to remove"), "recursive": B("Remove directories and their contents")}, ["path"])
T(s, "search_files", "Recursively find files whose names match a glob or substring, starting from a root folder. Optionally search inside file contents too.",
  {"root": S("Folder to start from"), "pattern": S("Glob or substring, e.g. *.pdf"), "content_query": S("Text that must appear inside the file"), "max_results": I("Cap on matches")}, ["root", "pattern"])
T(s, "get_file_info", "Metadata for a path: size, created/modified times, permissions, owner and type.",
  {"path": S("File or directory")}, ["path"])
T(s, "run_command", "Execute a shell command in the user's default shell and return stdout, stderr and the exit code. Long-running commands time out after timeout_ms.",
  {"command": S("Command line to run"), "cwd": S("Working directory"), "timeout_ms": I("Timeout in milliseconds")}, ["command"])
T(s, "list_processes", "Show running processes with PID, name, CPU % and memory usage, sorted by CPU.",
  {"filter": S("Only processes whose name contains this"), "limit": I("Max rows")})
T(s, "kill_process", "Terminate a running process by PID. Sends SIGTERM, or SIGKILL when force is true.",
  {"pid": I("Process id"), "force": B("Use SIGKILL")}, ["pid"])
T(s, "get_system_info", "OS version, uptime, CPU model, total/free RAM and disk usage per volume.", {})
T(s, "read_clipboard", "Return whatever text is currently on the system clipboard.", {})
T(s, "write_clipboard", "Put text on the system clipboard so the user can paste it elsewhere.",
  {"text": S("Text to place on the clipboard")}, ["text"])
T(s, "take_screenshot", "Capture the screen (whole display, one window, or a region) and return it as a PNG image.",
  {"display": I("Monitor index, 0 = primary"), "window_title": S("Capture only the window with this title"), "region": S("x,y,width,height")})
T(s, "open_application", "Launch a desktop app by name, optionally opening a file or URL with it.",
  {"app": S("Application name, e.g. 'Preview' or 'code'"), "target": S("File or URL to open")}, ["app"])

# ---------------------------------------------------------------- browser (browsing + scraping)
s = "browser"
T(s, "browser_navigate", "Navigate the current tab to a URL and wait for the page to load.",
  {"url": S("Address to open")}, ["url"])
T(s, "browser_go_back", "Go back to the previous page in history.", {})
T(s, "browser_click", "Click an element on the page. Identify the element by the ref from the latest snapshot.",
  {"element": S("Human-readable description of the element"), "ref": S("Element reference from the snapshot"), "double_click": B("Double-click instead")}, ["ref"])
T(s, "browser_type", "Type text into an editable element such as an input or textarea, optionally pressing Enter afterwards.",
  {"ref": S("Element reference"), "text": S("Text to type"), "submit": B("Press Enter after typing")}, ["ref", "text"])
T(s, "browser_fill_form", "Fill several form fields at once (text boxes, checkboxes, dropdowns).",
  {"fields": A("List of {ref, value} objects", item="object")}, ["fields"])
T(s, "browser_snapshot", "Accessibility snapshot of the current page: a structured tree of visible elements with refs you can click or type into. Better than a screenshot for acting on the page.", {})
T(s, "browser_take_screenshot", "Save a PNG of the current viewport or of the full scrollable page.",
  {"full_page": B("Capture the entire page, not just the viewport"), "filename": S("Where to save")})
T(s, "browser_tab_new", "Open a new tab, optionally at a URL.", {"url": S("URL to load in the new tab")})
T(s, "browser_tab_list", "List open tabs with their index, title and URL.", {})
T(s, "browser_wait_for", "Wait until some text appears or disappears, or for a fixed number of seconds.",
  {"text": S("Text to wait for"), "text_gone": S("Text to wait to vanish"), "time": N("Seconds to wait")})
T(s, "scrape_page", "Fetch a single web page and return its main content as clean markdown, stripping navigation, ads and boilerplate. Handles JavaScript-rendered pages.",
  {"url": S("Page to fetch"), "only_main_content": B("Drop headers/footers"), "formats": A("markdown, html, links")}, ["url"])
T(s, "crawl_website", "Crawl a whole site starting from a URL, following internal links up to a depth/page limit, and return the content of every page found. Runs asynchronously for big sites.",
  {"url": S("Start URL"), "max_pages": I("Page limit"), "max_depth": I("Link depth"), "include_paths": A("Only follow URLs matching these patterns")}, ["url"])
T(s, "extract_structured_data", "Pull specific fields out of one or more pages using a JSON schema or a plain-language prompt, e.g. product names and prices.",
  {"urls": A("Pages to extract from"), "schema": P("object", "JSON schema of the wanted fields"), "prompt": S("What to extract, in words")}, ["urls"])

# ---------------------------------------------------------------- brave_search
s = "brave_search"
T(s, "brave_web_search", "General web search via the Brave Search API. Returns titles, URLs and snippets. Use for facts, documentation, recent events.",
  {"query": S("Search terms"), "count": I("Results, max 20"), "offset": I("Pagination offset"), "freshness": S("pd, pw, pm, py for past day/week/month/year")}, ["query"])
T(s, "brave_news_search", "Search recent news articles. Results include source, publish date and thumbnail.",
  {"query": S("Topic"), "count": I("Number of articles"), "country": S("Two-letter country code"), "freshness": S("pd, pw, pm")}, ["query"])
T(s, "brave_image_search", "Find images on the web matching a query.",
  {"query": S("What to look for"), "count": I("Number of images"), "safesearch": S("off, moderate, strict")}, ["query"])
T(s, "brave_video_search", "Search for videos across the web (YouTube, Vimeo, news clips, etc.).",
  {"query": S("Search terms"), "count": I("Results")}, ["query"])
T(s, "brave_local_search", "Search for local businesses and points of interest (restaurants, shops, services) with address, rating, hours and phone. Falls back to web results when nothing local is found.",
  {"query": S("e.g. 'pizza near Central Park'"), "count": I("Max results")}, ["query"])
T(s, "brave_summarizer", "Get an AI-written answer summarising the top search results for a question, with citations.",
  {"query": S("The question")}, ["query"])

# ---------------------------------------------------------------- gmaps
s = "gmaps"
T(s, "maps_geocode", "Convert an address or place name to latitude/longitude coordinates.",
  {"address": S("Street address or landmark")}, ["address"])
T(s, "maps_reverse_geocode", "Turn latitude/longitude into a human-readable address.",
  {"latitude": N("Latitude"), "longitude": N("Longitude")}, ["latitude", "longitude"])
T(s, "maps_search_places", "Text search for places, e.g. 'vegan restaurants in Lisbon'. Returns names, addresses, ratings and place_ids.",
  {"query": S("Free-text search"), "location": S("lat,lng to bias results"), "radius": I("Metres"), "open_now": B("Only places open right now")}, ["query"])
T(s, "maps_nearby_search", "Find places of a given type within a radius of a point (e.g. all gas stations within 2 km).",
  {"location": S("lat,lng centre"), "radius": I("Radius in metres"), "type": S("Place type such as cafe, pharmacy, gas_station")}, ["location", "radius"])
T(s, "maps_place_details", "Full details for one place_id: opening hours, phone, website, reviews, photos.",
  {"place_id": S("Place identifier from a search")}, ["place_id"])
T(s, "maps_directions", "Turn-by-turn route between an origin and destination by driving, walking, cycling or transit, with duration and distance.",
  {"origin": S("Start address or lat,lng"), "destination": S("End address or lat,lng"), "mode": S("driving | walking | bicycling | transit"), "departure_time": S("ISO time or 'now'"), "avoid": A("tolls, highways, ferries")}, ["origin", "destination"])
T(s, "maps_distance_matrix", "Travel distance and time between many origins and many destinations at once. Handy for picking the closest of several options.",
  {"origins": A("Start points"), "destinations": A("End points"), "mode": S("Travel mode")}, ["origins", "destinations"])
T(s, "maps_elevation", "Elevation above sea level for one or more coordinates.",
  {"locations": A("lat,lng strings")}, ["locations"])
T(s, "maps_timezone", "Time zone ID and current UTC offset for a coordinate.",
  {"location": S("lat,lng"), "timestamp": I("Unix time, defaults to now")}, ["location"])

# ---------------------------------------------------------------- tripnest (travel bookings)
s = "tripnest"
T(s, "searchFlights", "Search one-way or round-trip flights between two airports or cities for given dates. Returns offers with price, stops, airline and an offerId needed to book.",
  {"origin": S("IATA code or city"), "destination": S("IATA code or city"), "departDate": S("YYYY-MM-DD"), "returnDate": S("YYYY-MM-DD for round trips"), "adults": I("Passengers"), "cabin": S("economy, premium, business, first"), "maxStops": I("0 for nonstop")}, ["origin", "destination", "departDate"])
T(s, "bookFlight", "Book a flight offer for the named passengers and charge the saved card.",
  {"offerId": S("From searchFlights"), "passengers": A("Passenger objects with name, birth date, passport", item="object")}, ["offerId", "passengers"])
T(s, "getFlightStatus", "Live status of a flight: delays, gate, terminal, departure and arrival times.",
  {"flightNumber": S("e.g. LH 454"), "date": S("YYYY-MM-DD")}, ["flightNumber"])
T(s, "selectSeat", "Choose or change a seat on a booked flight segment.",
  {"bookingRef": S("Booking reference"), "segment": I("Segment index"), "seat": S("e.g. 14C")}, ["bookingRef", "seat"])
T(s, "searchHotels", "Find hotels available in a city or near a landmark for check-in/check-out dates, filterable by price and star rating.",
  {"location": S("City, address or landmark"), "checkIn": S("YYYY-MM-DD"), "checkOut": S("YYYY-MM-DD"), "guests": I("Number of guests"), "maxPrice": N("Per night"), "minStars": I("1-5")}, ["location", "checkIn", "checkOut"])
T(s, "getHotelDetails", "Room types, amenities, cancellation policy and guest reviews for one hotel.",
  {"hotelId": S("Hotel id")}, ["hotelId"])
T(s, "bookHotel", "Reserve a room at a hotel for the given dates.",
  {"hotelId": S("Hotel id"), "roomId": S("Room type id"), "checkIn": S("Date"), "checkOut": S("Date"), "guestName": S("Lead guest")}, ["hotelId", "roomId", "checkIn", "checkOut"])
T(s, "searchRentalCars", "Rental car offers at a pick-up location and time.",
  {"pickupLocation": S("Airport code or address"), "pickupTime": S("ISO datetime"), "dropoffTime": S("ISO datetime"), "carClass": S("economy, compact, suv, van")}, ["pickupLocation", "pickupTime", "dropoffTime"])
T(s, "listTrips", "All of the user's upcoming (or past) trips with their bookings grouped together.",
  {"status": S("upcoming | past | all")})
T(s, "getBooking", "Look up one booking by reference: itinerary, passengers, price paid, status.",
  {"bookingRef": S("Booking reference / PNR")}, ["bookingRef"])
T(s, "cancelBooking", "Cancel a flight, hotel or car booking. Refund depends on the fare rules; the response states the refund amount.",
  {"bookingRef": S("Booking reference"), "reason": S("Optional reason")}, ["bookingRef"])

# ---------------------------------------------------------------- openweather
s = "openweather"
T(s, "current_weather", "Current conditions for a city or coordinates: temperature, feels-like, humidity, wind, cloud cover and a short description.",
  {"location": S("City name or lat,lng"), "units": S("metric | imperial")}, ["location"])
T(s, "hourly_forecast", "Hour-by-hour forecast for the next 48 hours, including chance of precipitation.",
  {"location": S("City or lat,lng"), "hours": I("How many hours, max 48"), "units": S("metric | imperial")}, ["location"])
T(s, "daily_forecast", "Daily forecast up to 8 days: highs, lows, rain/snow probability, sunrise and sunset.",
  {"location": S("City or lat,lng"), "days": I("1-8"), "units": S("metric | imperial")}, ["location"])
T(s, "weather_alerts", "Active government weather warnings for an area (storms, floods, heat, etc.).",
  {"location": S("City or lat,lng")}, ["location"])
T(s, "air_pollution", "Air quality index plus PM2.5, PM10, ozone and NO2 concentrations, current or forecast.",
  {"location": S("City or lat,lng"), "forecast": B("Return the 4-day forecast instead of now")}, ["location"])
T(s, "historical_weather", "Observed weather for a past date at a location.",
  {"location": S("City or lat,lng"), "date": S("YYYY-MM-DD")}, ["location", "date"])
T(s, "uv_index", "UV index now and its daily maximum.", {"location": S("City or lat,lng")}, ["location"])

# ---------------------------------------------------------------- homeassistant (smart home)
s = "homeassistant"
T(s, "HassTurnOn", "Turns on/opens a device or entity (light, switch, fan, cover, media player). Target by name, area or domain.",
  {"name": S("Entity name, e.g. 'kitchen light'"), "area": S("Room/area"), "domain": S("light, switch, fan, cover...")})
T(s, "HassTurnOff", "Turns off/closes a device or entity.",
  {"name": S("Entity name"), "area": S("Room/area"), "domain": S("Entity domain")})
T(s, "HassLightSet", "Sets the brightness or color of a light.",
  {"name": S("Light name"), "area": S("Room"), "brightness": I("0-100 percent"), "color": S("Color name or hex")})
T(s, "HassClimateSetTemperature", "Sets the target temperature of a thermostat / climate device.",
  {"name": S("Thermostat name"), "area": S("Room"), "temperature": N("Target in configured units")}, ["temperature"])
T(s, "HassClimateGetTemperature", "Gets the current indoor temperature reported by a thermostat or climate sensor.",
  {"name": S("Thermostat name"), "area": S("Room")})
T(s, "HassGetState", "Gets the current state and attributes of entities, e.g. whether a door is open or a sensor value.",
  {"name": S("Entity name"), "area": S("Room"), "domain": S("Domain filter"), "state": S("Only entities in this state")})
T(s, "HassListEntities", "Lists all exposed devices and entities, optionally filtered by area or domain.",
  {"area": S("Room"), "domain": S("light, sensor, lock, ...")})
T(s, "HassLockDoor", "Locks a smart lock.", {"name": S("Lock name, e.g. 'front door'")}, ["name"])
T(s, "HassUnlockDoor", "Unlocks a smart lock. May require a PIN code.",
  {"name": S("Lock name"), "code": S("PIN if configured")}, ["name"])
T(s, "HassActivateScene", "Activates a saved scene such as 'movie night' or 'good morning'.",
  {"name": S("Scene name")}, ["name"])
T(s, "HassMediaPause", "Pauses a media player (speaker, TV) in the house.",
  {"name": S("Media player"), "area": S("Room")})
T(s, "HassVacuumStart", "Starts the robot vacuum, optionally for specific rooms.",
  {"name": S("Vacuum name"), "rooms": A("Rooms to clean")})
T(s, "HassGetHistory", "State history of an entity over a period, e.g. how long a light was on or temperature over the day.",
  {"name": S("Entity name"), "start": S("ISO start time"), "end": S("ISO end time")}, ["name"])

# ---------------------------------------------------------------- spotify (music + podcasts)
s = "spotify"
T(s, "search-catalog", "Search Spotify for tracks, albums, artists, playlists, shows or episodes.",
  {"q": S("Search text"), "type": A("track, album, artist, playlist, show, episode"), "limit": I("Max per type")}, ["q", "type"])
T(s, "start-playback", "Start or resume playback on the active device. Pass a context URI (album/playlist) or a list of track URIs to play something specific.",
  {"context_uri": S("spotify:album:... or spotify:playlist:..."), "uris": A("Track URIs"), "device_id": S("Target device")})
T(s, "pause-playback", "Pause playback on the user's active device.", {"device_id": S("Device id")})
T(s, "skip-to-next", "Skip to the next track in the queue.", {"device_id": S("Device id")})
T(s, "skip-to-previous", "Go back to the previous track.", {"device_id": S("Device id")})
T(s, "set-volume", "Set playback volume in percent on the active device.",
  {"volume_percent": I("0-100"), "device_id": S("Device id")}, ["volume_percent"])
T(s, "add-to-queue", "Append a track or episode to the end of the play queue.",
  {"uri": S("Track or episode URI")}, ["uri"])
T(s, "get-currently-playing", "What is playing right now: track, artist, album, progress and device.", {})
T(s, "get-recently-played", "The user's last 50 played tracks with timestamps.", {"limit": I("Max 50")})
T(s, "create-playlist", "Create a new empty playlist in the user's library.",
  {"name": S("Playlist name"), "description": S("Optional blurb"), "public": B("Visible on profile")}, ["name"])
T(s, "add-tracks-to-playlist", "Add one or more tracks to an existing playlist.",
  {"playlist_id": S("Playlist id"), "uris": A("Track URIs")}, ["playlist_id", "uris"])
T(s, "get-user-playlists", "List playlists owned or followed by the current user.", {"limit": I("Page size")})
T(s, "save-tracks", "Save tracks to the user's Liked Songs.", {"ids": A("Track ids")}, ["ids"])
T(s, "get-show-episodes", "List episodes of a podcast show, newest first.",
  {"show_id": S("Show id"), "limit": I("Max episodes")}, ["show_id"])

# ---------------------------------------------------------------- mastodon (social)
s = "mastodon"
T(s, "post_status", "Publish a new post (toot). Supports content warnings, visibility, media attachments and replying to another status.",
  {"status": S("Text of the post"), "in_reply_to_id": S("Status to reply to"), "visibility": S("public | unlisted | private | direct"), "spoiler_text": S("Content warning"), "media_ids": A("Uploaded media ids")}, ["status"])
T(s, "delete_status", "Delete one of your own posts.", {"id": S("Status id")}, ["id"])
T(s, "schedule_status", "Queue a post to be published automatically at a future time.",
  {"status": S("Text"), "scheduled_at": S("ISO datetime, at least 5 minutes ahead")}, ["status", "scheduled_at"])
T(s, "upload_media", "Upload an image, video or audio file to attach to a post. Returns a media id.",
  {"file_path": S("Local file"), "description": S("Alt text")}, ["file_path"])
T(s, "get_home_timeline", "Posts from accounts you follow, newest first.", {"limit": I("Max 40"), "max_id": S("Paginate older than this")})
T(s, "get_hashtag_timeline", "Public posts tagged with a hashtag.", {"hashtag": S("Tag without #"), "limit": I("Max posts")}, ["hashtag"])
T(s, "get_trending_tags", "Hashtags trending on the instance right now.", {"limit": I("Max tags")})
T(s, "boost_status", "Boost (reblog) a post to your followers.", {"id": S("Status id")}, ["id"])
T(s, "favourite_status", "Favourite (like) a post.", {"id": S("Status id")}, ["id"])
T(s, "bookmark_status", "Privately bookmark a post to read later.", {"id": S("Status id")}, ["id"])
T(s, "follow_account", "Follow another account.", {"account_id": S("Account id"), "notify": B("Get notified when they post")}, ["account_id"])
T(s, "search_accounts", "Find accounts by username or display name, including remote instances.",
  {"q": S("Name or @user@instance"), "limit": I("Max results")}, ["q"])
T(s, "get_notifications", "Your notifications: mentions, new followers, boosts, favourites, poll results.",
  {"types": A("mention, follow, reblog, favourite, poll"), "limit": I("Max")})

# ---------------------------------------------------------------- alpaca (trading / personal finance)
s = "alpaca"
T(s, "get_account", "Brokerage account summary: cash, buying power, equity, day-trade count and account status.", {})
T(s, "get_positions", "All open positions with quantity, average entry price, market value and unrealized P/L.", {})
T(s, "get_latest_quote", "Latest bid/ask and last trade price for a stock or crypto symbol.",
  {"symbol": S("Ticker, e.g. AAPL or BTC/USD")}, ["symbol"])
T(s, "get_price_bars", "Historical OHLCV candles for a symbol at a chosen timeframe (1Min to 1Month).",
  {"symbol": S("Ticker"), "timeframe": S("1Min, 5Min, 1Hour, 1Day, 1Week"), "start": S("ISO date"), "end": S("ISO date")}, ["symbol", "timeframe"])
T(s, "place_order", "Submit a buy or sell order. Supports market, limit, stop and stop-limit orders and fractional quantities.",
  {"symbol": S("Ticker"), "side": S("buy | sell"), "qty": N("Shares (may be fractional)"), "notional": N("Dollar amount instead of qty"), "type": S("market | limit | stop | stop_limit"), "limit_price": N("For limit orders"), "time_in_force": S("day | gtc | ioc")}, ["symbol", "side", "type"])
T(s, "list_orders", "Orders filtered by status (open, closed, all), newest first.",
  {"status": S("open | closed | all"), "limit": I("Max"), "symbols": A("Only these tickers")})
T(s, "get_order", "One order by id, with fill status and average fill price.", {"order_id": S("Order id")}, ["order_id"])
T(s, "cancel_order", "Cancel an open order that hasn't filled yet.", {"order_id": S("Order id")}, ["order_id"])
T(s, "close_position", "Liquidate a position entirely or partially at market.",
  {"symbol": S("Ticker"), "percentage": N("Portion to sell, default 100")}, ["symbol"])
T(s, "get_portfolio_history", "Equity and profit/loss over time for the whole account.",
  {"period": S("1D, 1W, 1M, 3M, 1A"), "timeframe": S("Resolution")})
T(s, "get_account_activities", "Account ledger: fills, dividends, deposits, withdrawals and fees.",
  {"activity_types": A("FILL, DIV, CSD, CSW, FEE"), "after": S("ISO date")})
T(s, "get_market_clock", "Whether the market is open now and the next open/close times.", {})

# ---------------------------------------------------------------- fitbit (health & fitness)
s = "fitbit"
T(s, "getDailyActivitySummary", "Steps, distance, floors, calories burned and active minutes for a date.",
  {"date": S("YYYY-MM-DD or 'today'")})
T(s, "getSleepLog", "Sleep sessions for a date: duration, efficiency and time in deep, light, REM and awake stages.",
  {"date": S("YYYY-MM-DD")})
T(s, "getHeartRate", "Heart rate for a day: resting heart rate, time in zones and optional intraday series.",
  {"date": S("YYYY-MM-DD"), "detail": S("1sec | 1min | none")})
T(s, "getActivityLog", "List of recorded workouts/exercises (runs, rides, swims) with duration, distance and calories.",
  {"afterDate": S("YYYY-MM-DD"), "limit": I("Max entries")})
T(s, "logActivity", "Manually record an exercise session.",
  {"activityName": S("e.g. 'Yoga'"), "startTime": S("HH:mm"), "durationMinutes": I("Length"), "date": S("YYYY-MM-DD"), "distanceKm": N("Optional distance")}, ["activityName", "startTime", "durationMinutes", "date"])
T(s, "logWeight", "Record a body weight measurement (and optional body fat %).",
  {"weightKg": N("Weight"), "fatPercent": N("Body fat"), "date": S("YYYY-MM-DD")}, ["weightKg"])
T(s, "getWeightLog", "Weight and BMI entries over a date range.",
  {"startDate": S("YYYY-MM-DD"), "endDate": S("YYYY-MM-DD")}, ["startDate"])
T(s, "logFood", "Log something eaten to the food diary with calories and meal type.",
  {"foodName": S("What was eaten"), "calories": I("kcal"), "mealType": S("breakfast | lunch | dinner | snack"), "date": S("YYYY-MM-DD")}, ["foodName", "mealType"])
T(s, "getFoodLog", "Food diary for a date with total calories and macros.", {"date": S("YYYY-MM-DD")})
T(s, "logWater", "Add water intake.", {"amountMl": I("Millilitres"), "date": S("YYYY-MM-DD")}, ["amountMl"])
T(s, "getSpO2", "Blood oxygen saturation (SpO2) averages measured during sleep.", {"date": S("YYYY-MM-DD")})
T(s, "setActivityGoal", "Change the daily goal for steps, distance, floors or active minutes.",
  {"goalType": S("steps | distance | floors | activeMinutes"), "value": N("New target")}, ["goalType", "value"])

# ---------------------------------------------------------------- metabase (warehouse + BI)
s = "metabase"
T(s, "list_databases", "Data sources connected to Metabase (Snowflake, Postgres, BigQuery...).", {})
T(s, "list_tables", "Tables in a connected database, with schema and row-count estimates.",
  {"database_id": I("Database id"), "schema": S("Restrict to one schema")}, ["database_id"])
T(s, "get_table_metadata", "Columns of a table with their types, semantic types and foreign keys.",
  {"table_id": I("Table id")}, ["table_id"])
T(s, "execute_sql", "Run a native SQL query against a connected warehouse and return up to 2,000 rows. Read-only connections reject writes.",
  {"database_id": I("Database id"), "query": S("SQL text"), "max_rows": I("Row cap")}, ["database_id", "query"])
T(s, "search_content", "Search saved questions, dashboards, models and collections by name or description.",
  {"q": S("Search text"), "models": A("card, dashboard, collection, dataset")}, ["q"])
T(s, "list_dashboards", "All dashboards the user can see, with collection and last-edited date.", {"collection_id": I("Only this collection")})
T(s, "get_dashboard", "One dashboard's layout, cards, filters and parameters.", {"dashboard_id": I("Dashboard id")}, ["dashboard_id"])
T(s, "create_dashboard", "Create an empty dashboard in a collection.",
  {"name": S("Title"), "description": S("Optional"), "collection_id": I("Collection")}, ["name"])
T(s, "create_card", "Save a new question (card) from SQL or the query builder, with a visualization type such as bar, line, table or number.",
  {"name": S("Question title"), "database_id": I("Database"), "native_query": S("SQL"), "display": S("table | bar | line | pie | scalar")}, ["name", "database_id"])
T(s, "run_card_query", "Execute a saved question and return its current results.",
  {"card_id": I("Card id"), "parameters": A("Filter values", item="object")}, ["card_id"])
T(s, "add_card_to_dashboard", "Place an existing saved question on a dashboard at a given grid position.",
  {"dashboard_id": I("Dashboard"), "card_id": I("Card"), "row": I("Grid row"), "col": I("Grid column")}, ["dashboard_id", "card_id"])
T(s, "create_alert", "Email or Slack a saved question's results on a schedule or when it crosses a goal line.",
  {"card_id": I("Card id"), "channel": S("email | slack"), "recipients": A("Addresses or channels"), "condition": S("rows | goal_above | goal_below"), "schedule": S("hourly | daily | weekly")}, ["card_id", "channel", "recipients"])

# ---------------------------------------------------------------- replicate (ML hosting)
s = "replicate"
T(s, "search_models", "Search public models by keyword, e.g. 'text to speech' or 'upscale'.", {"query": S("Keywords")}, ["query"])
T(s, "get_model", "Details for a model (owner/name): description, latest version, input schema, run count.",
  {"model": S("owner/name")}, ["model"])
T(s, "list_model_versions", "All versions of a model with ids and creation dates.", {"model": S("owner/name")}, ["model"])
T(s, "create_prediction", "Run a model on the given inputs. Returns a prediction id; poll it or set wait=true to block until the output is ready.",
  {"model": S("owner/name or version id"), "input": P("object", "Model inputs, e.g. {prompt: ...}"), "wait": B("Wait for completion up to 60s"), "webhook": S("URL called when done")}, ["model", "input"])
T(s, "get_prediction", "Status, logs, output and timing of a prediction.", {"id": S("Prediction id")}, ["id"])
T(s, "cancel_prediction", "Stop a running prediction.", {"id": S("Prediction id")}, ["id"])
T(s, "list_predictions", "Your recent predictions, newest first.", {"cursor": S("Pagination cursor")})
T(s, "create_deployment", "Create a private, always-on deployment of a model version on chosen hardware with min/max instance counts.",
  {"name": S("Deployment name"), "model": S("owner/name"), "version": S("Version id"), "hardware": S("e.g. gpu-a100-large"), "min_instances": I("Min"), "max_instances": I("Max")}, ["name", "model", "version", "hardware"])
T(s, "update_deployment", "Change a deployment's version, hardware or instance scaling.",
  {"name": S("Deployment"), "version": S("New version"), "hardware": S("New hardware"), "min_instances": I("Min"), "max_instances": I("Max")}, ["name"])
T(s, "list_hardware", "Available hardware SKUs (CPU, T4, A40, A100, H100) with names.", {})

# ---------------------------------------------------------------- aws_security (IAM + scanners)
s = "aws_security"
T(s, "iam_list_users", "List IAM users in the account with creation date and last console login.", {"path_prefix": S("Filter by path")})
T(s, "iam_create_user", "Create an IAM user. Does not give console access or keys by itself.",
  {"user_name": S("Name"), "tags": A("Key=Value tags")}, ["user_name"])
T(s, "iam_delete_user", "Delete an IAM user. Their access keys, policies and group memberships must be removed first.",
  {"user_name": S("Name")}, ["user_name"])
T(s, "iam_attach_user_policy", "Attach a managed policy (e.g. ReadOnlyAccess) to a user, granting its permissions.",
  {"user_name": S("User"), "policy_arn": S("Policy ARN")}, ["user_name", "policy_arn"])
T(s, "iam_add_user_to_group", "Add a user to an IAM group so they inherit its policies.",
  {"user_name": S("User"), "group_name": S("Group")}, ["user_name", "group_name"])
T(s, "iam_list_access_keys", "Access keys of a user with status, creation date and last-used date.",
  {"user_name": S("User")}, ["user_name"])
T(s, "iam_create_access_key", "Generate a new access key pair for a user. The secret is shown only once.",
  {"user_name": S("User")}, ["user_name"])
T(s, "iam_deactivate_access_key", "Set an access key to Inactive without deleting it.",
  {"user_name": S("User"), "access_key_id": S("AKIA...")}, ["user_name", "access_key_id"])
T(s, "iam_simulate_principal_policy", "Test whether a user or role would be allowed to perform given actions on given resources, without doing them.",
  {"principal_arn": S("User or role ARN"), "actions": A("e.g. s3:GetObject"), "resources": A("Resource ARNs")}, ["principal_arn", "actions"])
T(s, "inspector_list_findings", "Vulnerability findings from Amazon Inspector across EC2, ECR images and Lambda, filterable by severity and resource.",
  {"severity": A("CRITICAL, HIGH, MEDIUM, LOW"), "resource_type": S("ec2 | ecr_image | lambda"), "cve_id": S("Only this CVE"), "max_results": I("Max")})
T(s, "inspector_get_coverage", "Which resources Inspector is scanning and which are not covered, with reasons.",
  {"resource_type": S("Filter")})
T(s, "ecr_start_image_scan", "Kick off a vulnerability scan of a container image in ECR.",
  {"repository": S("ECR repository"), "image_tag": S("Tag, e.g. latest")}, ["repository", "image_tag"])
T(s, "inspector_create_suppression_rule", "Suppress findings that match a filter (e.g. an accepted-risk CVE) so they stop showing as active.",
  {"name": S("Rule name"), "cve_id": S("CVE to suppress"), "reason": S("Justification")}, ["name"])

if __name__ == "__main__":
    with open(os.path.join(HERE, "tools.json"), "w") as f:
        json.dump(TOOLS, f, indent=1, ensure_ascii=False)
        f.write("\n")
    from collections import Counter
    c = Counter(t["server"] for t in TOOLS)
    print(len(TOOLS), "tools,", len(c), "services")
    for k, v in c.items():
        print(f"  {k}: {v}")
    names = [t["server"] + "/" + t["name"] for t in TOOLS]
    assert len(names) == len(set(names))
