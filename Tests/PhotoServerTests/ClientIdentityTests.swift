import Testing

@testable import PhotoServer

@Suite("ClientIdentity: the client behind a trusted proxy", .timeLimit(.minutes(3)))
struct ClientIdentityTests {
    @Test("the last hop of X-Forwarded-For, from a trusted proxy only; anything not an address is ignored")
    func forwarded() {
        let identity = ClientIdentity(trustedProxies: ["127.0.0.1", "::1"])
        #expect(identity.client(peer: "127.0.0.1", forwardedFor: "198.51.100.7, 203.0.113.9") == "203.0.113.9")
        #expect(identity.client(peer: "::1", forwardedFor: "2001:DB8::1") == "2001:db8::1")
        #expect(identity.client(peer: "::ffff:127.0.0.1", forwardedFor: "203.0.113.9") == "203.0.113.9")
        // A peer that is not a trusted proxy is itself the client, whatever it writes.
        #expect(identity.client(peer: "192.0.2.5", forwardedFor: "203.0.113.9") == "192.0.2.5")
        // A trusted proxy that sent no header, or garbage as its hop: the proxy.
        #expect(identity.client(peer: "127.0.0.1", forwardedFor: nil) == "127.0.0.1")
        #expect(identity.client(peer: "127.0.0.1", forwardedFor: "203.0.113.9, unknown") == "127.0.0.1")
        #expect(identity.client(peer: "127.0.0.1", forwardedFor: "203.0.113.9, 10.0.0.1:4444") == "127.0.0.1")
        #expect(ClientIdentity(trustedProxies: []).client(peer: "127.0.0.1", forwardedFor: "203.0.113.9") == "127.0.0.1")
    }
}
