"""factscope.metrics"""
