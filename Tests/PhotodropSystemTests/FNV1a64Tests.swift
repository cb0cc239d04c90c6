import PhotodropSystem
import Testing

/// The hash behind the intent log's record checksums (on disk) and the shared inbox's file preference (agreed between
/// nodes): its values must never change.
@Suite("FNV-1a, 64 bits")
struct FNV1a64Tests {
    @Test("the reference values of the FNV-1a specification, byte by byte or in one go")
    func referenceValues() {
        #expect(FNV1a64().value == 0xcbf2_9ce4_8422_2325)
        var a = FNV1a64()
        a.add(UInt8(ascii: "a"))
        #expect(a.value == 0xaf63_dc4c_8601_ec8c)
        var foobar = FNV1a64()
        foobar.add("foo".utf8)
        foobar.add(Array("bar".utf8))
        #expect(foobar.value == 0x8594_4171_f739_67e8)
    }
}
