/// The server's HTML pages.
enum GalleryPages {
    /// The page a browser gets without a session: how to sign in (the token is never asked for in a form, so that
    /// it is not typed into the wrong site).
    static func signIn(failed: Bool) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>photodrop: sign in</title></head>
        <body>
        <h1>photodrop</h1>
        <p>\(failed ? "That token is not this server's token." : "This server needs its token.")
        Open the address <code>photodrop serve</code> printed when it started
        (<code>http://HOST:PORT/?token=…</code>) once in this browser; it remembers the session.</p>
        </body></html>
        """
    }

    /// The start page for a signed-in browser.
    static let index = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>photodrop</title></head>
        <body>
        <h1>photodrop</h1>
        <p>Signed in. The library's API answers under <a href="/api/albums">/api/albums</a>.</p>
        </body></html>
        """
}
