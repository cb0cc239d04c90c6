/// The gallery's JavaScript (`/gallery.js`): plain ES2020, no build step, nothing fetched from elsewhere.
///
/// - Albums, smart albums and folders in a side list (a phone gets them in a drop-down at the top); All Photos opens
///   first; Recently Deleted is listed once, last.
/// - The grid as every photo gallery has it: grouped by the day of capture (local time) under a date header, newest
///   first, each day's photos in justified rows (a row's pictures keep their aspect ratios and fill the width; the
///   last row of a day is not stretched). Virtualised: the layout is arithmetic over the loaded assets (extended as
///   pages arrive, redone only when the width changes), and only the rows and headers in view, plus a screen above
///   and below, are elements, so that 100,000 assets keep the page at a few hundred elements. Pages come from the
///   API with its keyset cursor as the grid scrolls; only a few fields of each asset are kept.
/// - An asset without a picture (a file the decoders cannot read) shows its kind and why, not an empty box.
/// - A viewer: the preview (or the video, H.264 directly, other codecs through the playable version), ← → and Esc,
///   the local capture time with its offset, place, camera, size, favourite, delete; the trash with restore.
/// - Live Photos play their motion while the pointer is over them.
/// - Live updates: `/api/events` (server-sent events). A small open album is read again as far as it was loaded and
///   laid out in place (unchanged cells stay the same elements); deep in a large one, the newest page is merged.
enum GalleryScript {
    static let source = #"""
        "use strict";
        const ROW = 180;             // px: the height a justified row aims at
        const GAP = 4;               // px between pictures
        const HEADER = 40;           // px: a day's header
        const PAGE = 100;            // assets per API page: a first screen at once, each page made in a few ms
        const state = { album: null, total: 0, assets: [], next: undefined, loading: false, trash: false, open: -1 };
        // The layout of the loaded assets: each one's box, the day headers, and where to continue when a page arrives.
        const layout = { width: 0, x: new Float64Array(0), y: new Float64Array(0), w: new Float64Array(0),
                         h: new Float64Array(0), headers: [], done: 0, bottom: 0, perRow: 4 };
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
        function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }

        // A few fields per asset: 100,000 of them stay small.
        function slim(asset) {
          const width = asset.pixelWidth || 0, height = asset.pixelHeight || 0;
          return { id: asset.id, kind: asset.kind, urls: asset.urls, favorite: asset.isFavorite,
                   live: (asset.mediaSubtypes || []).includes("livePhoto"),
                   ratio: width > 0 && height > 0 ? Math.min(4, Math.max(0.25, width / height)) : 1,
                   day: asset.day || (asset.creationDate || "").slice(0, 10) || "",
                   problem: asset.pictureError || null };
        }

        // What a cell shows of its asset: a cell whose asset now looks different is made again.
        function look(asset) {
          return [asset.kind, asset.favorite, asset.live, asset.ratio, asset.problem, JSON.stringify(asset.urls)].join("|");
        }

        const SMART_FIRST = "SmartAlbum-UserLibrary";
        const TRASH = "SmartAlbum-RecentlyDeleted";

        async function loadAlbums() {
          const { albums } = await api("/api/albums");
          const list = $("#albums");
          const picker = $("#album-picker");
          list.replaceChildren();
          picker.replaceChildren();
          // All Photos and the other smart albums first, then folders and albums; Recently Deleted once, last.
          const smart = albums.filter((album) => album.type === "smartAlbum" && !album.id.startsWith(TRASH));
          const others = albums.filter((album) => album.type !== "smartAlbum");
          for (const album of smart.concat(others)) {
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
          trash.dataset.id = "trash";
          trash.addEventListener("click", openTrash);
          list.append(trash);
          const option = document.createElement("option");
          option.value = "trash";
          option.textContent = "Recently Deleted";
          picker.append(option);
          picker.onchange = () => picker.value === "trash" ? openTrash()
            : openAlbum(albums.find((album) => album.id === picker.value));
          const first = albums.find((album) => album.id === (state.album && state.album.id)) ||
            albums.find((album) => album.id.startsWith(SMART_FIRST)) || albums.find((album) => album.type === "album");
          if (first && !state.album && !state.trash) openAlbum(first);
          return albums;
        }

        function select(id) {
          for (const item of document.querySelectorAll("#albums li")) item.classList.toggle("selected", item.dataset.id === id);
          $("#album-picker").value = id;
        }

        function reset() {
          state.assets = [];
          state.next = undefined;
          layout.done = 0;
          layout.bottom = 0;
          layout.headers = [];
          $("#cells").replaceChildren();
          $("#grid").scrollTop = 0;
        }

        async function openAlbum(album) {
          state.album = album;
          state.trash = false;
          state.total = album.count;
          reset();
          select(album.id);
          $("#title").textContent = album.title;
          await loadMore();
        }

        async function openTrash() {
          state.album = null;
          state.trash = true;
          reset();
          select("trash");
          const { assets } = await api("/api/trash");
          state.assets = assets.map(slim);
          state.total = assets.length;
          state.next = null;
          $("#title").textContent = "Recently Deleted";
          render();
        }

        // A page of an album's assets with the grid's few fields: the first, or the one after `cursor`.
        function briefPage(album, cursor) {
          const after = cursor ? "&cursor=" + encodeURIComponent(cursor) : "";
          return api("/api/albums/" + encodeURIComponent(short(album.id)) + "/assets?fields=brief&limit=" + PAGE + after);
        }

        async function loadMore() {
          if (state.loading || state.next === null || state.trash || !state.album) return;
          state.loading = true;
          const album = state.album;
          try {
            const page = await briefPage(album, state.next);
            if (album !== state.album) return;
            state.assets.push(...page.assets.map(slim));
            state.next = page.next;
            if (state.next === null) state.total = state.assets.length;
            else state.total = Math.max(state.total, state.assets.length + 1);
          } finally {
            state.loading = false;
          }
          render();
        }

        function grow(array, size) {
          if (array.length >= size) return array;
          const bigger = new Float64Array(Math.max(size, array.length * 2, 256));
          bigger.set(array);
          return bigger;
        }

        // Lays out the assets from `layout.done` on (the first asset of the last row, which may take more now that
        // more came): a header for each new day, then rows filled until their pictures at ROW px high are wider than
        // the grid, scaled down to fit it exactly. A day's last row, and the last loaded row, keep ROW px.
        function extendLayout(width) {
          if (width !== layout.width) {
            layout.width = width;
            layout.done = 0;
          }
          const assets = state.assets;
          const n = assets.length;
          layout.x = grow(layout.x, n); layout.y = grow(layout.y, n); layout.w = grow(layout.w, n); layout.h = grow(layout.h, n);
          let index = layout.done;
          let y = index === 0 ? 0 : layout.y[index];
          if (index === 0) layout.headers = [];
          else while (layout.headers.length && layout.headers[layout.headers.length - 1].y >= y) layout.headers.pop();
          let rows = 0, placed = 0;
          while (index < n) {
            const day = assets[index].day;
            const last = layout.headers[layout.headers.length - 1];
            if (!last || last.day !== day) {
              // Keyed by day and place: a day can come twice (assets of two time zones, in the order of their instants).
              layout.headers.push({ day, y, key: day + "@" + y });
              y += HEADER;
            }
            // One row: as many of this day's pictures as fit.
            let end = index, ratios = 0;
            while (end < n && assets[end].day === day) {
              ratios += assets[end].ratio;
              end++;
              if (ratios * ROW + (end - index - 1) * GAP >= width) break;
            }
            const full = ratios * ROW + (end - index - 1) * GAP >= width;
            const height = full ? Math.max(40, (width - (end - index - 1) * GAP) / ratios) : ROW;
            let x = 0;
            for (let i = index; i < end; i++) {
              const w = full && i === end - 1 ? width - x : assets[i].ratio * height;
              layout.x[i] = x; layout.y[i] = y; layout.w[i] = w; layout.h[i] = height;
              x += w + GAP;
            }
            // The last loaded row may grow when the next page comes: it is laid out again then.
            if (end === n && state.next !== null) layout.done = index;
            else layout.done = end;
            rows++;
            placed += end - index;
            index = end;
            y += height + GAP;
          }
          if (rows > 0 && placed > 0) layout.perRow = Math.max(1, placed / rows);
          layout.bottom = y;
        }

        // The first index whose box ends below `top` (boxes are in reading order, so their tops never decrease).
        function firstBelow(top) {
          let low = 0, high = state.assets.length;
          while (low < high) {
            const middle = (low + high) >> 1;
            if (layout.y[middle] + layout.h[middle] < top) low = middle + 1; else high = middle;
          }
          return low;
        }

        function dayTitle(day) {
          const [year, month, date] = day.split("-").map(Number);
          if (!year) return "Date unknown";
          return new Date(year, month - 1, date).toLocaleDateString(undefined,
            { weekday: "long", year: "numeric", month: "long", day: "numeric" });
        }

        // Only the rows and headers in view, and a screen above and below, are elements.
        function render() {
          const grid = $("#grid");
          const spacer = $("#spacer");
          // The width without a scrollbar: the spacer's own (the grid always keeps a scrollbar's gutter).
          const width = Math.max(1, spacer.clientWidth);
          extendLayout(width);
          const missing = Math.max(0, state.total - state.assets.length);
          spacer.style.height = Math.ceil(layout.bottom + Math.ceil(missing / layout.perRow) * (ROW + GAP)) + "px";
          const top = grid.scrollTop - grid.clientHeight;
          const bottom = grid.scrollTop + 2 * grid.clientHeight;
          const cells = $("#cells");
          const wanted = new Map();
          for (let index = firstBelow(top); index < state.assets.length && layout.y[index] < bottom; index++) {
            wanted.set(state.assets[index].id, index);
          }
          const headers = new Map();
          for (const header of layout.headers) {
            if (header.y + HEADER >= top && header.y < bottom) headers.set(header.key, header);
          }
          for (const element of [...cells.children]) {
            if (element.classList.contains("day") ? !headers.has(element.dataset.key) : !wanted.has(element.dataset.id)) {
              element.remove();
            }
          }
          const present = new Map([...cells.children].map((element) =>
            [element.classList.contains("day") ? "day:" + element.dataset.key : element.dataset.id, element]));
          for (const [key, header] of headers) {
            if (present.has("day:" + key)) continue;
            const element = document.createElement("h2");
            element.className = "day";
            element.dataset.key = key;
            element.textContent = dayTitle(header.day);
            element.style.transform = `translate(0px, ${header.y}px)`;
            cells.append(element);
          }
          for (const [id, index] of wanted) {
            let cell = present.get(id) || makeCell(state.assets[index]);
            cell.style.transform = `translate(${layout.x[index]}px, ${layout.y[index]}px)`;
            cell.style.width = layout.w[index] + "px";
            cell.style.height = layout.h[index] + "px";
            cell.dataset.index = index;
            if (!present.has(id)) cells.append(cell);
          }
          const count = state.next === null ? plural(state.assets.length, "item")
            : state.assets.length + "+ items";
          $("#status").textContent = count;
          if (state.next !== null && state.assets.length &&
              layout.y[state.assets.length - 1] < grid.scrollTop + 3 * grid.clientHeight) loadMore();
        }

        function makeCell(asset) {
          const cell = document.createElement("div");
          cell.className = "cell " + asset.kind + (asset.live ? " live" : "") + (asset.favorite ? " favorite" : "");
          cell.dataset.id = asset.id;
          cell.dataset.look = look(asset);
          if (asset.problem) {
            // No picture can be made of it: say what it is and why, rather than show an empty box.
            cell.classList.add("unreadable");
            const kind = document.createElement("strong");
            kind.textContent = asset.kind === "video" ? "Video" : asset.kind === "gif" ? "GIF" : "Photo";
            const why = document.createElement("span");
            why.textContent = "No picture: " + asset.problem;
            cell.title = why.textContent;
            cell.append(kind, why);
          } else {
            const image = document.createElement("img");
            image.loading = "lazy";
            image.decoding = "async";
            image.alt = "";
            image.src = asset.urls.thumbnail;
            image.addEventListener("error", async () => {
              // Made on demand and failed (422 carries the decoder's reason).
              let reason = "it cannot be shown";
              try {
                const response = await fetch(asset.urls.thumbnail, { credentials: "same-origin" });
                reason = (await response.json()).error || reason;
              } catch (_) {}
              asset.problem = reason;
              cell.replaceWith(makeCell(asset));
              render();
            }, { once: true });
            cell.append(image);
          }
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
          // The assets before and after it: serve reads their previews into memory, so that stepping is instant.
          const neighbours = [index - 1, index + 1].filter((i) => i >= 0 && i < state.assets.length)
            .map((i) => short(state.assets[i].id));
          const asset = await api("/api/assets/" + encodeURIComponent(short(slimAsset.id))
            + (neighbours.length ? "?warm=" + neighbours.map(encodeURIComponent).join(",") : ""));
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
            image.addEventListener("error", async () => {
              // No picture can be made of it: what it is, and why.
              let reason = slimAsset.problem || "it cannot be shown";
              try { reason = (await (await fetch(asset.urls.preview, { credentials: "same-origin" })).json()).error || reason; } catch (_) {}
              const note = document.createElement("p");
              note.className = "unreadable";
              note.textContent = (asset.mime || asset.kind) + ": no picture can be made of this file (" + reason + "). "
                + "Its original is kept as it was.";
              image.replaceWith(note);
            }, { once: true });
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
          const page = await briefPage(album);
          const head = page.assets.map(slim);
          const inHead = new Set(head.map((asset) => asset.id));
          const last = head.length ? state.assets.findIndex((asset) => asset.id === head[head.length - 1].id) : -1;
          const tail = state.assets.slice(last + 1).filter((asset) => !inHead.has(asset.id) && !gone.has(asset.id));
          state.assets = head.concat(tail);
          state.total = Math.max(album.count, state.assets.length);
          render();
        }

        // A small album is read again as far as it was loaded and laid out again in place: the cells of assets that
        // did not change stay the same elements (no flicker, no lost click), and the scroll position stays.
        async function refreshAlbum(album) {
          const loaded = Math.max(state.assets.length, 1);
          const assets = [];
          let next = undefined;
          do {
            const page = await briefPage(album, next);
            if (!state.album || state.trash || state.album.id !== album.id) return;
            assets.push(...page.assets.map(slim));
            next = page.next;
          } while (next && assets.length < loaded);
          state.album = album;
          state.assets = assets;
          state.next = next;
          state.total = next === null ? assets.length : Math.max(album.count, assets.length + 1);
          layout.done = 0;
          const byId = new Map(assets.map((asset) => [asset.id, asset]));
          for (const element of [...$("#cells").children]) {
            if (element.classList.contains("day")) continue;
            const asset = byId.get(element.dataset.id);
            if (!asset || element.dataset.look !== look(asset)) element.remove();
          }
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
                  await refreshAlbum(fresh);
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
