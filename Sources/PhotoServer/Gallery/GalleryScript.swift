/// The gallery's JavaScript (`/gallery.js`): plain ES2020, no build step, nothing fetched from elsewhere.
///
/// - Albums, smart albums and folders in a side list (a phone gets them in a drop-down at the top).
/// - A virtualised grid: one spacer as tall as all rows, and only the rows in view (plus a screen above and below)
///   as elements, so that 100,000 assets keep the page at a few hundred elements. Pages come from the API with its
///   keyset cursor as the grid scrolls; only a few fields of each asset are kept.
/// - A viewer: the preview (or the video, H.264 directly, other codecs through the playable version), ← → and Esc,
///   the local capture time with its offset, place, camera, size, favourite, delete; the trash with restore.
/// - Live Photos play their motion while the pointer is over them.
/// - Live updates: `/api/events` (server-sent events) reloads the current album's first page when it changes.
enum GalleryScript {
    static let source = #"""
        "use strict";
        const CELL = 168;            // px: a thumbnail cell, gap included
        const PAGE = 100;            // assets per API page: a first screen at once, each page made in a few ms
        const state = { album: null, total: 0, assets: [], next: undefined, loading: false, trash: false, open: -1 };
        const $ = (selector) => document.querySelector(selector);

        async function api(path, options = {}) {
          const response = await fetch(path, { credentials: "same-origin", ...options,
            headers: { "Content-Type": "application/json", ...(options.headers || {}) } });
          if (!response.ok) {
            let message = response.statusText;
            try { message = (await response.json()).error || message; } catch (_) {}
            throw new Error(message);
          }
          return response.status === 204 ? null : response.json();
        }

        function short(id) { return id.slice(0, id.indexOf("/") > 0 ? id.indexOf("/") : id.length); }

        // A few fields per asset: 100,000 of them stay small.
        function slim(asset) {
          return { id: asset.id, kind: asset.kind, urls: asset.urls, favorite: asset.isFavorite,
                   live: (asset.mediaSubtypes || []).includes("livePhoto") };
        }

        async function loadAlbums() {
          const { albums } = await api("/api/albums");
          const list = $("#albums");
          const picker = $("#album-picker");
          list.replaceChildren();
          picker.replaceChildren();
          for (const album of albums) {
            const item = document.createElement("li");
            item.textContent = album.title + (album.type === "folder" ? "/" : "");
            item.className = album.type;
            item.dataset.id = album.id;
            if (album.type !== "folder") {
              const count = document.createElement("span");
              count.className = "count";
              count.textContent = album.count;
              item.append(" ", count);
              item.addEventListener("click", () => openAlbum(album));
              const option = document.createElement("option");
              option.value = album.id;
              option.textContent = album.title;
              picker.append(option);
            }
            list.append(item);
          }
          const trash = document.createElement("li");
          trash.textContent = "Recently Deleted";
          trash.className = "trash";
          trash.addEventListener("click", openTrash);
          list.append(trash);
          picker.onchange = () => openAlbum(albums.find((album) => album.id === picker.value));
          const first = albums.find((album) => album.id === (state.album && state.album.id)) ||
            albums.find((album) => album.type === "album") || albums.find((album) => album.type === "smartAlbum");
          if (first && !state.album) openAlbum(first);
          return albums;
        }

        async function openAlbum(album) {
          state.album = album;
          state.trash = false;
          state.total = album.count;
          state.assets = [];
          state.next = undefined;
          for (const item of document.querySelectorAll("#albums li")) {
            item.classList.toggle("selected", item.dataset.id === album.id);
          }
          $("#album-picker").value = album.id;
          $("#title").textContent = album.title;
          $("#grid").scrollTop = 0;
          await loadMore();
        }

        async function openTrash() {
          state.album = null;
          state.trash = true;
          const { assets } = await api("/api/trash");
          state.assets = assets.map(slim);
          state.total = assets.length;
          state.next = null;
          $("#title").textContent = "Recently Deleted";
          render();
        }

        async function loadMore() {
          if (state.loading || state.next === null || state.trash || !state.album) return;
          state.loading = true;
          try {
            const cursor = state.next ? "&cursor=" + encodeURIComponent(state.next) : "";
            const page = await api("/api/albums/" + encodeURIComponent(short(state.album.id)) + "/assets?fields=brief&limit=" + PAGE + cursor);
            state.assets.push(...page.assets.map(slim));
            state.next = page.next;
            if (state.next === null) state.total = state.assets.length;
            else state.total = Math.max(state.total, state.assets.length + 1);
          } finally {
            state.loading = false;
          }
          render();
        }

        // Only the rows in view, and a screen above and below, are elements.
        function render() {
          const grid = $("#grid");
          const columns = Math.max(1, Math.floor(grid.clientWidth / CELL));
          const rows = Math.ceil(state.total / columns);
          $("#spacer").style.height = rows * CELL + "px";
          const first = Math.max(0, Math.floor(grid.scrollTop / CELL) - Math.ceil(grid.clientHeight / CELL));
          const last = Math.min(rows, Math.ceil((grid.scrollTop + grid.clientHeight) / CELL) + Math.ceil(grid.clientHeight / CELL));
          const cells = $("#cells");
          const wanted = new Map();
          for (let index = first * columns; index < Math.min(last * columns, state.assets.length); index++) {
            wanted.set(state.assets[index].id, index);
          }
          for (const cell of [...cells.children]) {
            if (!wanted.has(cell.dataset.id)) cell.remove();
          }
          const present = new Set([...cells.children].map((cell) => cell.dataset.id));
          for (const [id, index] of wanted) {
            let cell = present.has(id) ? cells.querySelector(`[data-id="${CSS.escape(id)}"]`) : makeCell(state.assets[index]);
            cell.style.transform = `translate(${(index % columns) * CELL}px, ${Math.floor(index / columns) * CELL}px)`;
            cell.dataset.index = index;
            if (!present.has(id)) cells.append(cell);
          }
          $("#status").textContent = state.assets.length + (state.next === null ? "" : "+") + " items";
          if (last * columns >= state.assets.length - columns && state.next !== null) loadMore();
        }

        function makeCell(asset) {
          const cell = document.createElement("div");
          cell.className = "cell " + asset.kind + (asset.live ? " live" : "") + (asset.favorite ? " favorite" : "");
          cell.dataset.id = asset.id;
          const image = document.createElement("img");
          image.loading = "lazy";
          image.decoding = "async";
          image.alt = "";
          image.src = asset.urls.thumbnail;
          cell.append(image);
          if (asset.live && asset.urls.video) {
            // A Live Photo plays its motion while the pointer is over it.
            cell.addEventListener("mouseenter", () => {
              const video = document.createElement("video");
              video.src = asset.urls.video;
              video.muted = true;
              video.autoplay = true;
              video.playsInline = true;
              video.loop = true;
              cell.append(video);
            });
            cell.addEventListener("mouseleave", () => cell.querySelector("video")?.remove());
          }
          cell.addEventListener("click", () => openViewer(Number(cell.dataset.index)));
          return cell;
        }

        function formatDate(asset) {
          const local = asset.localCreationDate;
          if (!local) return "date unknown";
          const [day, time] = local.split("T");
          const zone = asset.timeZoneOffset ? " (UTC" + asset.timeZoneOffset + ")" : local.endsWith("-00:00") ? " UTC" : " local time";
          return day + " " + time.slice(0, 8) + zone;
        }

        async function openViewer(index) {
          if (index < 0 || index >= state.assets.length) return;
          state.open = index;
          const slimAsset = state.assets[index];
          const asset = await api("/api/assets/" + encodeURIComponent(short(slimAsset.id)));
          const viewer = $("#viewer");
          const media = $("#media");
          media.replaceChildren();
          if (asset.kind === "video") {
            const video = document.createElement("video");
            video.controls = true;
            video.autoplay = true;
            video.playsInline = true;
            video.src = asset.urls.video;
            video.poster = asset.urls.preview;
            media.append(video);
          } else {
            const image = document.createElement("img");
            image.src = asset.urls.preview;
            image.alt = asset.originalFilename || "";
            media.append(image);
            if (asset.urls.video && (asset.mediaSubtypes || []).includes("livePhoto")) {
              image.addEventListener("mouseenter", () => {
                const motion = document.createElement("video");
                motion.src = asset.urls.video;
                motion.muted = true;
                motion.autoplay = true;
                motion.playsInline = true;
                motion.className = "motion";
                motion.addEventListener("ended", () => motion.remove());
                media.append(motion);
              });
            }
          }
          const place = asset.location ? asset.location.latitude.toFixed(5) + ", " + asset.location.longitude.toFixed(5) : "no place";
          const camera = [asset.cameraMake, asset.cameraModel].filter(Boolean).join(" ");
          $("#info").textContent = [asset.originalFilename, formatDate(asset), place, camera,
            asset.pixelWidth + " × " + asset.pixelHeight, (asset.albums || []).join(", ")].filter(Boolean).join(" · ");
          $("#details").textContent = describeCapture(asset);
          $("#words").textContent = [asset.title, asset.caption,
            asset.rating > 0 ? "★".repeat(asset.rating) : (asset.rating === -1 ? "rejected" : null),
            (asset.keywords || []).map((k) => "#" + k).join(" "), asset.artist, asset.copyright]
            .filter(Boolean).join(" · ");
          $("#favorite").textContent = asset.isFavorite ? "★ Favourite" : "☆ Favourite";
          $("#favorite").onclick = async () => {
            const changed = await api("/api/assets/" + encodeURIComponent(short(asset.id)) + "/favorite",
              { method: "POST", body: JSON.stringify({ favorite: !asset.isFavorite }) });
            slimAsset.favorite = changed.isFavorite;
            openViewer(index);
          };
          $("#delete").textContent = asset.isDeleted ? "Restore" : "Delete";
          $("#delete").onclick = async () => {
            const path = "/api/assets/" + encodeURIComponent(short(asset.id));
            if (asset.isDeleted) await api(path + "/restore", { method: "POST" });
            else await api(path, { method: "DELETE" });
            closeViewer();
            if (state.trash) openTrash(); else openAlbum(state.album);
          };
          viewer.hidden = false;
        }

        // "f/2.8 · 1/250 s · ISO 400 · 35 mm (52 mm equiv.) · flash · RF35mm F1.8 · 25 fps · facing 124°"
        function describeCapture(asset) {
          const parts = [];
          if (asset.fNumber) parts.push("f/" + Number(asset.fNumber.toFixed(1)));
          if (asset.exposureTime) {
            parts.push(asset.exposureTime >= 1 ? Number(asset.exposureTime.toFixed(1)) + " s"
              : "1/" + Math.round(1 / asset.exposureTime) + " s");
          }
          if (asset.iso) parts.push("ISO " + asset.iso);
          if (asset.focalLength) {
            parts.push(Number(asset.focalLength.toFixed(1)) + " mm"
              + (asset.focalLength35mm ? " (" + Math.round(asset.focalLength35mm) + " mm equiv.)" : ""));
          }
          if (asset.flashFired === true) parts.push("flash");
          const lens = [asset.lensMake, asset.lensModel].filter(Boolean);
          if (lens.length === 2 && lens[1].startsWith(lens[0])) lens.shift();
          if (lens.length) parts.push(lens.join(" "));
          if (asset.frameRate) parts.push(Number(asset.frameRate.toFixed(2)) + " fps");
          if (asset.imageDirection != null) parts.push("facing " + Math.round(asset.imageDirection) + "°");
          return parts.join(" · ");
        }

        function closeViewer() {
          state.open = -1;
          $("#viewer").hidden = true;
          $("#media").replaceChildren();
        }

        document.addEventListener("keydown", (event) => {
          if (state.open < 0) return;
          if (event.key === "Escape") closeViewer();
          else if (event.key === "ArrowRight") openViewer(state.open + 1);
          else if (event.key === "ArrowLeft") openViewer(state.open - 1);
        });

        // Deep in a large album, reading every loaded page again for each change would cost thousands of requests:
        // the newest page is read again and merged (new drops land there), and deleted assets leave.
        async function mergeNewest(album, gone) {
          const page = await api("/api/albums/" + encodeURIComponent(short(album.id)) + "/assets?fields=brief&limit=" + PAGE);
          const head = page.assets.map(slim);
          const inHead = new Set(head.map((asset) => asset.id));
          const last = head.length ? state.assets.findIndex((asset) => asset.id === head[head.length - 1].id) : -1;
          const tail = state.assets.slice(last + 1).filter((asset) => !inHead.has(asset.id) && !gone.has(asset.id));
          state.assets = head.concat(tail);
          state.total = Math.max(album.count, state.assets.length);
          render();
        }

        // Changes from any process: the album list's counts and the open album are read again.
        function follow() {
          const events = new EventSource("/api/events");
          let pending = null;
          const gone = new Set();
          events.addEventListener("change", (event) => {
            try {
              for (const id of (JSON.parse(event.data).assets || {}).deleted || []) gone.add(id);
            } catch (error) { /* a change without assets */ }
            clearTimeout(pending);
            pending = setTimeout(async () => {
              const albums = await loadAlbums();
              if (state.album && !state.trash) {
                const fresh = albums.find((album) => album.id === state.album.id);
                if (fresh && state.assets.length <= 2 * PAGE) {
                  const scrolled = $("#grid").scrollTop;
                  await openAlbum(fresh);
                  $("#grid").scrollTop = scrolled;
                } else if (fresh) {
                  await mergeNewest(fresh, gone);
                }
              }
              gone.clear();
            }, 200);
          });
        }

        window.addEventListener("DOMContentLoaded", async () => {
          $("#grid").addEventListener("scroll", () => requestAnimationFrame(render), { passive: true });
          window.addEventListener("resize", () => requestAnimationFrame(render));
          $("#close").addEventListener("click", closeViewer);
          await loadAlbums();
          follow();
        });
        """#
}
