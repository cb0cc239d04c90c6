import PhotodropCLI
import PhotodropSystem

let status = await PhotodropCommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
