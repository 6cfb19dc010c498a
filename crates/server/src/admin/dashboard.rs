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

/// One of the page's scripts, `dashboard/NAME.js`, served at `/dashboard/NAME.js`.
macro_rules! script {
    ($name:literal) => {
        (
            concat!("/dashboard/", $name, ".js"),
            JS,
            include_str!(concat!("dashboard/", $name, ".js")),
        )
    };
}

/// Every file the page loads: path, content type, contents (compiled in). The scripts run in
/// this order (`defer`, as index.html lists them).
const FILES: [(&str, &str, &str); 15] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("dashboard/index.html"),
    ),
    script!("dashboard"),
    script!("servers"),
    script!("connect"),
    script!("console"),
    script!("catalog"),
    script!("agents"),
    script!("approvals"),
    script!("audit"),
    script!("overview"),
    script!("tokens"),
    script!("grants"),
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
