import PhotodropCLI

#if canImport(Glibc)
    import Glibc
#endif

let status = await PhotodropCommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
