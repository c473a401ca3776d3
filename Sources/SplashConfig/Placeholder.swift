enum _PlaceholderSplashConfig {}
