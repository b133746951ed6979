"""The pages' reads, one module per page of views/ (the odds lab reads through the shoe explorer's): each
holds its page's SQL, built from the warehouse's table names (models/warehouse/schema.py), and returns
frames through the read-only helper dashboards/query.py, with any ratio taken by models/ratios.py."""
