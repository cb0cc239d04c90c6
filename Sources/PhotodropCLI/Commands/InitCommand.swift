import Ingest
import PhotoCatalog
import PhotodropConfiguration

/// `photodrop init`: creates the library in the configured folder, also when the folder exists already (which `watch`
/// and `import` refuse, see ``Ingest/LibraryLocation``).
enum InitCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let config = context.config
            if LibraryLocation.state(of: config.library) == .library {
                context.print("'\(config.library)' already holds a photodrop library; nothing was changed")
                return ExitStatus.success
            }
            do {
                let library = ConfiguredFolders.forWatch(config).filter { $0.key == "library" }
                if try !ConfiguredFolders.check(library, config: config).isEmpty {
                    context.print("Creating the library folder '\(config.library)'")
                }
                try LibraryLocation.checkGroup(config)
            } catch {
                throw CommandFailure("\(error)")
            }
            let library = LibraryLocation.library(config)
            do {
                try await library.recoverInterruptedChanges()
            } catch {
                throw CommandFailure("cannot create a library at '\(config.library)': \(error)")
            }
            context.print("Created a photodrop library at '\(config.library)'")
            return ExitStatus.success
        }
    }
}
