import Foundation
import Ingest
import PhotodropSystem
import Testing
import Uploads

@Suite("OutcomeRecord: the outcome of a file, as a file record", .timeLimit(.minutes(3)))
struct OutcomeRecordTests {
    @Test("every field survives the payload; quotes, line breaks, NFD and bytes that are not UTF-8 included")
    func roundTrip() throws {
        let strange = FileNameEncoding.string(fromBytes: Array("Trip/caf".utf8) + [0xE9, 0xFF] + Array(".jpg".utf8)).text
        let records = [
            OutcomeRecord(
                outcome: "rejected", path: strange, album: "Trip \"2024\"", reason: "corrupt",
                message: "line one\nline two\ttab", rejectedPath: "/srv/Rejected/Trip/cafe\u{301}.jpg"),
            OutcomeRecord(outcome: "photo", path: "Trip/a.jpg", album: nil, asset: "3F2A/L0/001", message: nil),
        ]
        for record in records {
            let draft = record.draft(for: FileNode(device: 7, inode: 9))
            #expect(draft.kind == OutcomeRecord.kind && draft.device == 7 && draft.inode == 9)
            #expect(OutcomeRecord(payload: draft.payload) == record, "\(String(decoding: draft.payload, as: UTF8.self))")
        }
        #expect(OutcomeRecord(payload: Data("not json".utf8)) == nil)
        #expect(OutcomeRecord(payload: Data(#"{"path": "x"}"#.utf8)) == nil, "no outcome")
        #expect(records[0].isStored == false && records[1].isStored)
    }
}
