import Testing

@testable import Ingest

@Suite("LookupSampling", .timeLimit(.minutes(3)))
struct LookupSamplingTests {
    @Test("every file is looked up until 64 miss in a row; then one in 64 until one is found, then every file again")
    func samplesAfterAStreakOfMisses() throws {
        var sampling = LookupSampling()
        for _ in 0..<LookupSampling.missesBeforeSampling {
            let asked = sampling.shouldLookUp()
            #expect(asked)
            sampling.record(found: false)
        }
        // Sampling: of the next 640 files, exactly 10 are looked up (and all miss).
        var asked = 0
        for _ in 0..<(10 * LookupSampling.sampleInterval) where sampling.shouldLookUp() {
            asked += 1
            sampling.record(found: false)
        }
        #expect(asked == 10)
        // A sampled lookup finds something: every file is looked up again.
        var skipped = 0
        while !sampling.shouldLookUp() {
            skipped += 1
            try #require(skipped < LookupSampling.sampleInterval, "no lookup within one sampling interval")
        }
        sampling.record(found: true)
        for _ in 0..<LookupSampling.missesBeforeSampling {
            let asked = sampling.shouldLookUp()
            #expect(asked)
            sampling.record(found: false)
        }
        let askedAfterNewStreak = sampling.shouldLookUp()
        #expect(!askedAfterNewStreak, "a new streak of misses samples again")
    }

    @Test("hits now and then keep every file looked up (a second import of a partly stored tree)")
    func mixedHitsNeverSample() {
        var sampling = LookupSampling()
        for index in 0..<10_000 {
            let asked = sampling.shouldLookUp()
            #expect(asked)
            sampling.record(found: index % 50 == 0)
        }
    }
}
