"""The Strawberry GraphQL API. Imports ``app``; ``app`` never imports this package."""
