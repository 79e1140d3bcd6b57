"""The dashboard's web layer: access, the queue, read gates, the file-route guard and visitors' runs."""
