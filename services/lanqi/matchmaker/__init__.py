"""The matchmaker: lobby, seeks, challenges, tournaments, ratings and exports."""
