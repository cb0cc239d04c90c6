import FoundationEssentials
import Ingest
import PhotoCatalog
import PhotodropSystem
import PhotodropConcurrency

/// `serve`'s answer to systemd's watchdog: `WATCHDOG=1` every half interval while a read of the library succeeds
/// (a catalog that cannot be read any more, a hung disk, stops the pings and systemd restarts serve).
final class ServeWatchdog: Sendable {
    private let notifier: ServiceNotifier
    private let library: PhotoLibrary
    private let stopped = StopFlag()

    init(notifier: ServiceNotifier, library: PhotoLibrary) {
        self.notifier = notifier
        self.library = library
    }

    func start() {
        guard let interval = notifier.watchdogInterval else { return }
        let (notifier, library, stopped) = (self.notifier, self.library, self.stopped)
        let pause = Double(max(100_000, (interval / 2) / .microseconds(1))) / 1e6
        SystemThread.start(name: "serve watchdog") {
            while !stopped.isRaised {
                if (try? library.statistics()) != nil { notifier.send(["WATCHDOG=1"]) }
                SystemThread.sleep(seconds: pause)
            }
        }
    }

    func stop() { stopped.raise() }
}
