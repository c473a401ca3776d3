enum _PlaceholderSplashDaemon {}
