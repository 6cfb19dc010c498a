//! The web dashboard at `/`: static files (compiled in) that read the REST API in the browser.

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

/// Only this gateway's own files and API: no inline script, no framing.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const PAGE: &str = include_str!("dashboard/index.html");
const SCRIPT: &str = include_str!("dashboard/dashboard.js");
const CONSOLE: &str = include_str!("dashboard/console.js");
const CONNECT: &str = include_str!("dashboard/connect.js");
const APPROVALS: &str = include_str!("dashboard/approvals.js");
const SERVER: &str = include_str!("dashboard/server.js");
const STYLE: &str = include_str!("dashboard/dashboard.css");
const ICON: &str = include_str!("dashboard/favicon.svg");

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
pub fn router() -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { file("text/html; charset=utf-8", PAGE) }),
        )
        .route(
            "/dashboard/dashboard.js",
            get(|| async { file("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route(
            "/dashboard/console.js",
            get(|| async { file("text/javascript; charset=utf-8", CONSOLE) }),
        )
        .route(
            "/dashboard/connect.js",
            get(|| async { file("text/javascript; charset=utf-8", CONNECT) }),
        )
        .route(
            "/dashboard/approvals.js",
            get(|| async { file("text/javascript; charset=utf-8", APPROVALS) }),
        )
        .route(
            "/dashboard/server.js",
            get(|| async { file("text/javascript; charset=utf-8", SERVER) }),
        )
        .route(
            "/dashboard/dashboard.css",
            get(|| async { file("text/css; charset=utf-8", STYLE) }),
        )
        .route(
            "/dashboard/favicon.svg",
            get(|| async { file("image/svg+xml", ICON) }),
        )
        .route(
            "/favicon.ico",
            get(|| async { file("image/svg+xml", ICON) }),
        )
}
