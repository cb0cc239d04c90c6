import FoundationEssentials
import PhotodropCLI
import PhotodropSystem
import RenderHelperProcess
import Rendering

// This program is its own render helper (`photodrop render-helper`), also when installed under another name.
RenderHelper.runningPhotodrop = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == RenderWorker.command {
    SystemProcess.exit(RenderWorker.run(arguments))
}
let status = await PhotodropCommandLine.run(arguments)
SystemProcess.exit(status)
