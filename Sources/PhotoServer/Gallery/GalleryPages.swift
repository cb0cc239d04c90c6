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

    /// The gallery's page for a signed-in browser: its script and style are files of their own (the content
    /// security policy allows no inline script).
    static let index = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>photodrop</title><link rel="stylesheet" href="/gallery.css"><script src="/gallery.js" defer></script></head>
        <body>
        <header><h1 id="title">photodrop</h1><select id="album-picker" aria-label="Album"></select><span id="status"></span></header>
        <nav><ul id="albums"></ul></nav>
        <main id="grid"><div id="spacer"><div id="cells"></div></div></main>
        <div id="viewer" hidden><div id="media"></div>
        <div id="bar"><div id="about"><span id="info"></span><span id="details"></span><span id="words"></span></div>\
        <button id="favorite">☆ Favourite</button><button id="delete">Delete</button>
        <button id="close">Close</button></div></div>
        </body></html>
        """
}
