enum _PlaceholderSplashBuiltins {}
