import Foundation
import Testing

/// CI sets `PHOTODROP_TESTS_MUST_NOT_SKIP=1` (`.ci/run`): there a test that would skip for lack of root, a tool, the
/// built binary or the corpus fails instead, so that what CI must run cannot silently not run.
public let skippingIsFailure = ProcessInfo.processInfo.environment["PHOTODROP_TESTS_MUST_NOT_SKIP"] == "1"

/// Returns when `condition` holds. Otherwise the test stops and shows as skipped with `reason` in the run's summary
/// (Swift Testing's cancellation), or, where skipping is a failure, records an issue and stops. For conditions known
/// only inside the test; a condition known before it starts is a ``Requirement`` trait (`.requires`).
public func skipUnless(
    _ condition: Bool, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    if condition { return }
    if skippingIsFailure {
        Issue.record("cannot run, and must not skip here: \(reason)", sourceLocation: sourceLocation)
        throw CannotRun(reason: reason)
    }
    try Test.cancel("skipped: \(reason)", sourceLocation: sourceLocation)
}

/// Thrown by ``skipUnless(_:_:sourceLocation:)`` after it recorded why a test that must not skip cannot run.
public struct CannotRun: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "cannot run: \(reason)" }
}

/// A trait for a test or a whole suite that needs something the machine may lack: where it is missing the test is
/// skipped (cancelled, with the reason), or, under `PHOTODROP_TESTS_MUST_NOT_SKIP=1`, fails.
public struct Requirement: TestTrait, SuiteTrait, TestScoping {
    let isMet: @Sendable () -> Bool
    let reason: String
    let sourceLocation: SourceLocation

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope runs once around its tests; each test checks for itself.
        guard test.isSuite || isMet() else {
            if skippingIsFailure {
                Issue.record("cannot run, and must not skip here: \(reason)", sourceLocation: sourceLocation)
                return
            }
            try Test.cancel("skipped: \(reason)", sourceLocation: sourceLocation)
        }
        try await function()
    }
}

extension Trait where Self == Requirement {
    /// Runs the test only where `condition` holds; see ``Requirement``.
    public static func requires(
        _ condition: @autoclosure @escaping @Sendable () -> Bool, _ reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        Requirement(isMet: condition, reason: reason, sourceLocation: sourceLocation)
    }
}
