/// The gallery's style sheet (`/gallery.css`): a side list and a grid on a wide screen, a drop-down and a grid on a
/// phone; the viewer covers the page.
enum GalleryStyle {
    static let source = #"""
        * { box-sizing: border-box; }
        html, body { margin: 0; height: 100%; font: 14px/1.4 system-ui, sans-serif; background: #111; color: #eee; }
        body { display: grid; grid-template-columns: 220px 1fr; grid-template-rows: auto 1fr; height: 100vh; }
        header { grid-column: 1 / 3; display: flex; gap: 12px; align-items: center; padding: 8px 12px; background: #1c1c1c; }
        header h1 { font-size: 16px; margin: 0; flex: 1; }
        #album-picker { display: none; }
        nav { overflow-y: auto; border-right: 1px solid #2a2a2a; }
        #albums { list-style: none; margin: 0; padding: 8px 0; }
        #albums li { padding: 6px 12px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        #albums li.folder { color: #999; cursor: default; }
        #albums li.smartAlbum { color: #9cf; }
        #albums li.selected { background: #2d4a6b; }
        #albums .count { color: #888; font-size: 12px; }
        #grid { overflow-y: scroll; overflow-x: hidden; scrollbar-gutter: stable; position: relative; padding: 0 8px; }
        #spacer { position: relative; }
        #cells { position: absolute; inset: 0; }
        .day { position: absolute; left: 0; top: 0; margin: 0; height: 40px; padding-top: 14px; font-size: 15px; font-weight: 600; color: #ddd; white-space: nowrap; }
        .cell { position: absolute; left: 0; top: 0; background: #222; cursor: pointer; overflow: hidden; }
        .cell.unreadable { display: flex; flex-direction: column; gap: 4px; padding: 8px; color: #bbb; font-size: 12px; background: #2a2222; }
        .cell.unreadable strong { color: #eee; font-size: 13px; }
        .cell.unreadable span { overflow: hidden; }
        #media p.unreadable { max-width: 40em; color: #ccc; text-align: center; }
        .cell img, .cell video { width: 100%; height: 100%; object-fit: cover; display: block; }
        .cell video { position: absolute; inset: 0; }
        .cell.video::after { content: "▶"; position: absolute; right: 6px; bottom: 4px; text-shadow: 0 0 3px #000; }
        .cell.live::after { content: "LIVE"; position: absolute; left: 6px; top: 4px; font-size: 10px; text-shadow: 0 0 3px #000; }
        .cell.favorite::before { content: "★"; position: absolute; left: 6px; bottom: 4px; z-index: 1; color: #fc3; }
        #viewer { position: fixed; inset: 0; background: rgba(0, 0, 0, 0.95); display: flex; flex-direction: column; z-index: 10; }
        #viewer[hidden] { display: none; }
        #media { flex: 1; display: flex; align-items: center; justify-content: center; position: relative; min-height: 0; }
        #media img, #media video { max-width: 100%; max-height: 100%; }
        #media video.motion { position: absolute; }
        #bar { display: flex; gap: 8px; align-items: center; padding: 8px 12px; flex-wrap: wrap; }
        #about { flex: 1; display: flex; flex-direction: column; gap: 2px; min-width: 0; }
        #info { color: #ccc; }
        #details, #words { color: #999; font-size: 90%; }
        #details:empty, #words:empty { display: none; }
        button { background: #333; color: #eee; border: 1px solid #555; padding: 6px 12px; border-radius: 4px; cursor: pointer; }
        @media (max-width: 640px) {
          body { grid-template-columns: 1fr; }
          nav { display: none; }
          #album-picker { display: block; max-width: 50%; }
          header { grid-column: 1; }
        }
        """#
}
