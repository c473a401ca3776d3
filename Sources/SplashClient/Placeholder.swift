enum _PlaceholderSplashClient {}
