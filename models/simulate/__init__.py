"""The shoe simulator: reproducible shoes dealt by the tableau, with a betting population."""
