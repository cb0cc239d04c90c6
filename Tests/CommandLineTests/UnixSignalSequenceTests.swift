import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import PhotodropCLI

@Suite("UnixSignalSequence", .timeLimit(.minutes(3)))
struct UnixSignalSequenceTests {
    @Test func deliversSignalsInsteadOfTheirDefaultAction() async throws {
        // SIGUSR1/SIGUSR2 would terminate the test process by default: receiving them proves the trap.
        let signals = UnixSignalSequence(trapping: UnixSignal(SIGUSR1), UnixSignal(SIGUSR2))
        let received = Task {
            var seen: [UnixSignal] = []
            for await signal in signals {
                seen.append(signal)
                if seen.count == 2 { break }
            }
            return seen
        }
        try await Task.sleep(for: .milliseconds(50))
        kill(getpid(), SIGUSR1)
        try await Task.sleep(for: .milliseconds(50))
        kill(getpid(), SIGUSR2)
        #expect(await received.value == [UnixSignal(SIGUSR1), UnixSignal(SIGUSR2)])
        #expect(UnixSignal.terminate.number == SIGTERM && UnixSignal.interrupt.description == "SIGINT")
    }
}
