import PhotodropCLI
import PhotodropSystem

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == RenderWorker.command {
    exit(RenderWorker.run(arguments))
}
let status = await PhotodropCommandLine.run(arguments)
exit(status)
