import Foundation
import PhotoCatalog
import Testing

@testable import Ingest

@Suite("Pairing: Live Photos, RAW+JPEG, edits and sidecars gathered into one asset", .timeLimit(.minutes(3)))
struct PairingDeskTests {
    typealias Desk = PairingDesk<String>
    let start = ContinuousClock.now
    let taken = Date(timeIntervalSince1970: 1_685_577_600)

    func file(
        _ name: String, _ role: Desk.Role, id: String? = nil, at seconds: Double = 0, taken offset: Double? = 0,
        model: String? = nil, sibling: Bool = false, stemCount: Int = 0, folder: String = "Trip"
    ) -> Desk.Candidate {
        Desk.Candidate(
            payload: name, folder: folder, fileName: name, role: role, contentIdentifier: id,
            captureDate: offset.map { taken.addingTimeInterval($0) }, model: model,
            hasSameStemSibling: sibling || stemCount > 1, sameStemCount: stemCount,
            arrived: start.advanced(by: .milliseconds(Int(seconds * 1000))))
    }

    func describe(_ groups: [Desk.Group]) -> [String] {
        groups.map { group in
            ([group.primary.map { "primary:\($0.payload)" } ?? "none"]
                + group.members.map { "\($0.type.name):\($0.candidate.payload)" }).joined(separator: " ")
        }
    }

    @Test("a Live Photo in either order by content identifier; a lone file without partner goes at once")
    func livePhotos() {
        for photoFirst in [true, false] {
            var desk = Desk(wait: .seconds(10))
            let photo = file("IMG_0001.HEIC", .photo, id: "A")
            let movie = file("IMG_0001.MOV", .video, id: "A", at: 3)
            let first = desk.offer(photoFirst ? photo : movie)
            #expect(first.isEmpty, "the first half waits")
            let second = describe(desk.offer(photoFirst ? movie : photo))
            #expect(second == ["primary:IMG_0001.HEIC pairedVideo:IMG_0001.MOV"])
            #expect(desk.isEmpty)
        }
        var desk = Desk(wait: .seconds(10))
        #expect(describe(desk.offer(file("DSC_1.JPG", .photo))) == ["primary:DSC_1.JPG"], "no reason to wait")
    }

    @Test("identifiers decide: two IMG_0001 from two phones never pair; without identifiers, stem and 2 s")
    func identifiersWin() {
        var desk = Desk(wait: .seconds(10))
        #expect(desk.offer(file("IMG_0001.HEIC", .photo, id: "A")).isEmpty)
        #expect(desk.offer(file("IMG_0001.MOV", .video, id: "B")).isEmpty, "another phone's movie waits for its own")
        let expired = describe(desk.expired(at: start.advanced(by: .seconds(11))))
        #expect(expired.sorted() == ["primary:IMG_0001.HEIC", "primary:IMG_0001.MOV"])

        var byName = Desk(wait: .seconds(10))
        #expect(byName.offer(file("clip.JPG", .photo, sibling: true)).isEmpty)
        #expect(describe(byName.offer(file("clip.MOV", .video, taken: 1.5))) == ["primary:clip.JPG pairedVideo:clip.MOV"])
        var far = Desk(wait: .seconds(10))
        #expect(far.offer(file("clip.JPG", .photo, sibling: true)).isEmpty)
        #expect(describe(far.offer(file("clip.MOV", .video, taken: 5))) == ["primary:clip.MOV"], "5 s apart")
    }

    @Test("RAW+JPEG in either order; the JPEG is the photo; other cameras and other times stay apart")
    func rawAndJpeg() {
        for jpegFirst in [true, false] {
            var desk = Desk(wait: .seconds(10))
            let jpeg = file("IMG_0001.JPG", .photo, model: "EOS R5", sibling: true)
            let raw = file("IMG_0001.CR2", .raw, taken: 0.5, model: "EOS R5", sibling: true)
            #expect(desk.offer(jpegFirst ? jpeg : raw).isEmpty)
            #expect(describe(desk.offer(jpegFirst ? raw : jpeg)) == ["primary:IMG_0001.JPG alternatePhoto:IMG_0001.CR2"])
        }
        var cards = Desk(wait: .seconds(10))
        #expect(cards.offer(file("IMG_0001.JPG", .photo, model: "EOS R5", sibling: true)).isEmpty)
        #expect(cards.offer(file("IMG_0001.CR2", .raw, model: "D850", sibling: true)).isEmpty, "another camera")
        #expect(cards.count == 2 && cards.fileCount == 2)
        // rawAndJpeg: separate: neither waits for the other.
        var separate = Desk(wait: .seconds(10), pairsRawAndJpeg: false)
        #expect(describe(separate.offer(file("IMG_0001.JPG", .photo, sibling: true))) == ["primary:IMG_0001.JPG"])
        #expect(describe(separate.offer(file("IMG_0001.CR2", .raw, sibling: true))) == ["primary:IMG_0001.CR2"])
    }

    @Test("edits, adjustments and sidecars join their asset whenever they come within the wait")
    func membersAndSidecars() {
        var desk = Desk(wait: .seconds(10))
        #expect(desk.offer(file("IMG_0001.CR2.xmp", .sidecar, at: 0)).isEmpty)
        #expect(desk.offer(file("IMG_0001.AAE", .adjustments, at: 1)).isEmpty)
        #expect(desk.offer(file("IMG_0001.JPG", .photo, at: 2, sibling: true)).isEmpty)
        #expect(desk.offer(file("IMG_0001.CR2", .raw, at: 3, sibling: true)).isEmpty, "sidecars may still come")
        #expect(desk.offer(file("IMG_E0001.JPG", .editedPhoto, at: 4)).isEmpty)
        #expect(desk.offer(file("IMG_0001.jpg.json", .sidecar, at: 5)).isEmpty)
        #expect(desk.expired(at: start.advanced(by: .seconds(9))).isEmpty, "the wait counts from the first file")
        let done = describe(desk.expired(at: start.advanced(by: .seconds(10))))
        #expect(
            done == [
                "primary:IMG_0001.JPG adjustmentData:IMG_0001.AAE alternatePhoto:IMG_0001.CR2 sidecar:IMG_0001.CR2.xmp "
                    + "fullSizePhoto:IMG_E0001.JPG sidecar:IMG_0001.jpg.json"
            ], "\(done)")
        // A sidecar whose media never comes is handed back alone: the committer rejects it.
        var orphan = Desk(wait: .seconds(10))
        #expect(orphan.offer(file("lost.jpg.json", .sidecar)).isEmpty)
        let alone = orphan.expired(at: start.advanced(by: .seconds(10)))
        #expect(alone.count == 1 && alone[0].primary == nil && alone[0].members.count == 1)
        #expect(orphan.nextDeadline == nil)
    }

    @Test("a group goes as soon as every file of its stem that was in the folder has joined, not after the wait")
    func completeWhenAllSiblingsJoined() {
        // A photo and its sidecar dropped together: the second file completes the group.
        var desk = Desk(wait: .seconds(10))
        #expect(desk.offer(file("DSC_7.JPG", .photo, stemCount: 2)).isEmpty, "its sidecar was in the folder too")
        #expect(describe(desk.offer(file("DSC_7.JPG.xmp", .sidecar, stemCount: 2))) == ["primary:DSC_7.JPG sidecar:DSC_7.JPG.xmp"])
        #expect(desk.isEmpty)
        // The sidecar first: the same.
        #expect(desk.offer(file("DSC_8.xmp", .sidecar, stemCount: 2)).isEmpty)
        #expect(describe(desk.offer(file("DSC_8.JPG", .photo, stemCount: 2))) == ["primary:DSC_8.JPG sidecar:DSC_8.xmp"])
        // RAW, JPEG and sidecar: all three, then at once.
        #expect(desk.offer(file("DSC_9.NEF", .raw, stemCount: 3)).isEmpty)
        #expect(desk.offer(file("DSC_9.JPG", .photo, stemCount: 3)).isEmpty, "the sidecar is still to come")
        #expect(
            describe(desk.offer(file("DSC_9.xmp", .sidecar, stemCount: 3)))
                == ["primary:DSC_9.JPG alternatePhoto:DSC_9.NEF sidecar:DSC_9.xmp"])
        // A Live Photo's photo and its adjustments: the photo still waits for its movie, which was not in the folder.
        #expect(desk.offer(file("IMG_0002.HEIC", .photo, id: "L", stemCount: 2)).isEmpty)
        #expect(desk.offer(file("IMG_0002.AAE", .adjustments, stemCount: 2)).isEmpty, "the movie may still come")
        #expect(
            describe(desk.offer(file("IMG_0002.MOV", .video, id: "L", at: 2, stemCount: 1)))
                == ["primary:IMG_0002.HEIC adjustmentData:IMG_0002.AAE pairedVideo:IMG_0002.MOV"])
        // Without a count (a claim from before counts were kept), a sidecar waits out the time as it always did.
        #expect(desk.offer(file("old.JPG", .photo, sibling: true)).isEmpty)
        #expect(desk.offer(file("old.JPG.xmp", .sidecar)).isEmpty)
        #expect(describe(desk.expired(at: start.advanced(by: .seconds(10)))) == ["primary:old.JPG sidecar:old.JPG.xmp"])
    }

    @Test("folders keep files apart; the next deadline is the earliest group's")
    func foldersAndDeadlines() {
        var desk = Desk(wait: .seconds(10))
        #expect(desk.offer(file("IMG_0001.HEIC", .photo, id: "A", at: 1, folder: "a")).isEmpty)
        #expect(desk.offer(file("IMG_0001.MOV", .video, id: "A", at: 2, folder: "b")).isEmpty)
        #expect(desk.nextDeadline == start.advanced(by: .seconds(11)))
        #expect(desk.drain().count == 2 && desk.isEmpty)
    }

    @Test("3,000 Live Photos whose halves arrive in random order, with sidecars: every pair found, nothing left")
    func manyPairsInRandomOrder() {
        var generator = SystemRandomNumberGenerator()
        var files: [Desk.Candidate] = []
        for index in 0..<3000 {
            let folder = "Album\(index % 10)"
            let stem = String(format: "IMG_%04d", index / 10)
            files.append(file("\(stem).HEIC", .photo, id: "ID-\(index)", folder: folder))
            files.append(file("\(stem).MOV", .video, id: "ID-\(index)", folder: folder))
            if index % 3 == 0 { files.append(file("\(stem).HEIC.xmp", .sidecar, folder: folder)) }
        }
        files.shuffle(using: &generator)
        var desk = Desk(wait: .seconds(10))
        var ready: [Desk.Group] = []
        for candidate in files { ready += desk.offer(candidate) }
        ready += desk.drain()
        #expect(desk.isEmpty && desk.count == 0)
        // A sidecar that came after its pair was complete is handed back alone (the committer finds the stored pair).
        let alone = ready.filter { $0.primary == nil }
        #expect(alone.allSatisfy { $0.members.count == 1 && $0.members[0].candidate.role == .sidecar })
        let pairs = ready.filter { $0.primary != nil }
        #expect(pairs.count == 3000)
        #expect(pairs.allSatisfy { group in
            guard let primary = group.primary, let movie = group.members.first(where: { $0.type == .pairedVideo })
            else { return false }
            return primary.contentIdentifier == movie.candidate.contentIdentifier
                && group.members.filter { $0.type == .sidecar }.allSatisfy {
                    $0.candidate.folder == primary.folder && $0.candidate.stem == primary.stem
                }
        })
        #expect(ready.reduce(0) { $0 + $1.all.count } == files.count, "every file once")
    }
}

@Suite("Pairing stems and siblings", .timeLimit(.minutes(3)))
struct StemSiblingsTests {
    @Test(
        "one stem for a shot's files, its edits and its sidecars",
        arguments: [
            ("IMG_0001.JPG", "img_0001"), ("IMG_0001.CR2", "img_0001"), ("IMG_E0001.HEIC", "img_0001"),
            ("IMG_0001.AAE", "img_0001"), ("IMG_0001.CR2.xmp", "img_0001"), ("IMG_0001.xmp", "img_0001"),
            ("IMG_0001.jpg.json", "img_0001"), ("IMG_0001.jpg.supplemental-metadata.json", "img_0001"),
            ("IMG_0001.jpg.supplemental-metadata(1).json", "img_0001"), ("IMG_0001.jpg.suppl.json", "img_0001"),
            ("notes", "notes"), (".hidden", ".hidden"), ("IMG_EDIT.JPG", "img_edit"), ("Café.JPG", "café"),
            ("IMG_E0001", "img_0001"), ("IMG_E12a.JPG", "img_e12a"), ("IMG_0001.JPG.XMP", "img_0001"),
            (".xmp", ".xmp"), ("a.xmp", "a"), ("IMG_E.JPG", "img_e"), ("A_Long_Name_Of_Many_Bytes.HEIC", "a_long_name_of_many_bytes"),
        ])
    func stems(name: String, stem: String) {
        #expect(StemSiblings.pairingStem(of: name) == stem)
    }

    @Test(
        "a path names an entry of a folder itself, not of a folder below it",
        arguments: [
            ("a/b.jpg", "a", true), ("a/b/c.jpg", "a", false), ("ab/c.jpg", "a", false), ("a/", "a", false),
            ("b.jpg", "", true), ("a/b.jpg", "", false), ("/x/y.jpg", "/x", true), ("a", "a", false),
        ])
    func directEntries(path: String, folder: String, isEntry: Bool) {
        #expect(PairingStage.isDirectly(path, in: folder) == isEntry)
    }

    @Test("a sibling is another name of the same stem, whatever its case")
    func siblings() {
        let folder = StemSiblings(names: ["IMG_0001.JPG", "IMG_0001.cr2", "IMG_0002.JPG", "lone.mov"])
        #expect(folder.hasSibling("IMG_0001.JPG") && folder.hasSibling("img_0001.CR2"))
        #expect(!folder.hasSibling("IMG_0002.JPG") && !folder.hasSibling("lone.MOV"))
        #expect(!folder.hasSibling("other.jpg"))
    }
}
