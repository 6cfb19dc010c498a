//! The web dashboard at `/`: static files (compiled in) that read the REST API in the browser.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

/// Only this gateway's own files and API: no inline script, no framing.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Every file the page loads: path, content type, contents (compiled in).
const FILES: [(&str, &str, &str); 15] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("dashboard/index.html"),
    ),
    (
        "/dashboard/dashboard.js",
        JS,
        include_str!("dashboard/dashboard.js"),
    ),
    (
        "/dashboard/servers.js",
        JS,
        include_str!("dashboard/servers.js"),
    ),
    (
        "/dashboard/connect.js",
        JS,
        include_str!("dashboard/connect.js"),
    ),
    (
        "/dashboard/console.js",
        JS,
        include_str!("dashboard/console.js"),
    ),
    (
        "/dashboard/catalog.js",
        JS,
        include_str!("dashboard/catalog.js"),
    ),
    (
        "/dashboard/agents.js",
        JS,
        include_str!("dashboard/agents.js"),
    ),
    (
        "/dashboard/approvals.js",
        JS,
        include_str!("dashboard/approvals.js"),
    ),
    (
        "/dashboard/audit.js",
        JS,
        include_str!("dashboard/audit.js"),
    ),
    (
        "/dashboard/overview.js",
        JS,
        include_str!("dashboard/overview.js"),
    ),
    (
        "/dashboard/tokens.js",
        JS,
        include_str!("dashboard/tokens.js"),
    ),
    (
        "/dashboard/grants.js",
        JS,
        include_str!("dashboard/grants.js"),
    ),
    (
        "/dashboard/dashboard.css",
        "text/css; charset=utf-8",
        include_str!("dashboard/dashboard.css"),
    ),
    (
        "/dashboard/favicon.svg",
        SVG,
        include_str!("dashboard/favicon.svg"),
    ),
    ("/favicon.ico", SVG, include_str!("dashboard/favicon.svg")),
];

fn file(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}

/// `/`, its scripts, style sheet and icon.
pub(crate) fn router() -> Router {
    FILES
        .iter()
        .fold(Router::new(), |router, &(path, content_type, body)| {
            router.route(path, get(move || async move { file(content_type, body) }))
        })
}
