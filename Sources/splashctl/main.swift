import SplashctlCommands

// splashctl of a development build; the package's is `splashd` under this name.
Splashctl.main()
