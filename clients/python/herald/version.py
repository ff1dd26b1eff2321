# The OpenAPI document's info.version; written by `npm run clients:generate`.
__version__ = "1.0.0"
