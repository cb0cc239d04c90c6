import Foundation
import Testing

@testable import PhotoServer

@Suite("AccessPolicy: sessions that end, and the Origin compared in full", .timeLimit(.minutes(3)))
struct AccessPolicyTests {
    let policy = AccessPolicy(token: "policy-test-token-0123456789", host: "127.0.0.1", acceptsAnyHost: false, secureCookies: false)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a session is valid within 7 days of its last use and 30 of its sign-in; forged or another token's is not")
    func sessions() {
        let day = 86_400.0
        let fresh = policy.sessionValue(signedIn: now - 29 * day, lastUsed: now - 6 * day)
        #expect(policy.session(fresh, now: now) != .forged)
        if case .valid = policy.session(fresh, now: now) {} else { Issue.record("\(policy.session(fresh, now: now))") }
        if case .expired = policy.session(policy.sessionValue(signedIn: now - 31 * day, lastUsed: now), now: now) {} else {
            Issue.record("30 days after its sign-in a session has ended")
        }
        if case .expired = policy.session(policy.sessionValue(signedIn: now - 8 * day, lastUsed: now - 8 * day), now: now) {} else {
            Issue.record("after 7 days unused a session has ended")
        }
        let other = AccessPolicy(token: "another-token-0123456789", host: "127.0.0.1", acceptsAnyHost: false, secureCookies: false)
        #expect(other.session(fresh, now: now) == .forged)
        #expect(policy.session(fresh.replacingOccurrences(of: "v1.", with: "v1.9"), now: now) == .forged)
        #expect(policy.session("photodrop", now: now) == .forged)
        // In use: renewed once an hour has passed since its last use, keeping its sign-in time.
        #expect(policy.renewedCookie(policy.sessionValue(signedIn: now - day, lastUsed: now - 60), authorization: nil, now: now) == nil)
        let renewed = policy.renewedCookie(policy.sessionValue(signedIn: now - day, lastUsed: now - 7200), authorization: nil, now: now)
        #expect(renewed?.contains("Max-Age=\(Int(29 * day))") == true, "\(renewed ?? "nil")")
    }

    @Test("a change carrying the cookie needs an Origin of the same scheme, host and port")
    func origin() {
        #expect(policy.sameOrigin("http://127.0.0.1:8377", host: "127.0.0.1:8377"))
        #expect(policy.sameOrigin("http://localhost", host: "localhost:80"))
        #expect(!policy.sameOrigin("http://127.0.0.1:8378", host: "127.0.0.1:8377"))
        #expect(!policy.sameOrigin("https://127.0.0.1:8377", host: "127.0.0.1:8377"))
        #expect(!policy.sameOrigin("http://127.0.0.1", host: "127.0.0.1:8377"))
        #expect(!policy.sameOrigin("http://evil.127.0.0.1:8377", host: "127.0.0.1:8377"))
        #expect(!policy.sameOrigin("http://user@127.0.0.1:8377", host: "127.0.0.1:8377"))
        #expect(!policy.sameOrigin("null", host: "127.0.0.1:8377"))
        let secure = AccessPolicy(token: "policy-test-token-0123456789", host: "0.0.0.0", acceptsAnyHost: true, secureCookies: true)
        #expect(secure.sameOrigin("https://photos.example.org", host: "photos.example.org"))
        #expect(secure.sameOrigin("https://[2001:db8::1]:8443", host: "[2001:DB8::1]:8443"))
        #expect(!secure.sameOrigin("http://photos.example.org", host: "photos.example.org"))
    }
}
