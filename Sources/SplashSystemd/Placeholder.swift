enum _PlaceholderSplashSystemd {}
