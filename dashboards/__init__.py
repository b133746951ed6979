"""The analysts' Streamlit dashboard; it reads the warehouse's serving snapshot only (not built yet)."""
