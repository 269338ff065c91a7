"""Qt-free state the screens show: a day's conversation (day.py), the memory filters
(memory_filters.py), the graph view (graph_view.py) and the chart series (stats_series.py).
Built from the core's plain dicts; the widgets in ui/ only draw them."""
