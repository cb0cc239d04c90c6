/// Why a command could not do its job: a message that names the bad argument or object and says what to do, and the
/// exit status (``ExitStatus/usage`` for a command line that cannot work, ``ExitStatus/failure`` otherwise).
struct CommandFailure: Error, Sendable, CustomStringConvertible {
    var message: String
    var status: Int32

    init(_ message: String, status: Int32 = ExitStatus.failure) {
        self.message = message
        self.status = status
    }

    /// A usage problem the parser cannot see (a malformed token, a bad value): exit status 2.
    static func usage(_ message: String) -> CommandFailure { CommandFailure(message, status: ExitStatus.usage) }

    var description: String { message }
}

extension CommandContext {
    /// Runs a command body: a ``CommandFailure`` (or any other error) becomes `photodrop <command>: message` on
    /// stderr and its exit status.
    func run(_ body: () async throws -> Int32) async -> Int32 {
        do {
            return try await body()
        } catch let failure as CommandFailure {
            fail(failure.message)
            return failure.status
        } catch {
            fail("\(error)")
            return ExitStatus.failure
        }
    }

    /// Prints `photodrop <command>: message` on stderr.
    func fail(_ message: String) {
        console.error("photodrop \(command.name): \(message)\n")
    }

    /// Prints a line on stdout.
    func print(_ line: String) {
        console.output(line + "\n")
    }
}
